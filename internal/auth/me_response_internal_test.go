package auth

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
)

var emailCases = []string{
	"ana@harborview-kitchens.example", "Ana.Gomez+shift@Example.COM", "o'brien@x.example",
	"!#$%&'*+-/=?^_`{|}~@a-b.example", "\"quoted local\"@example.com", "ana@[192.0.2.1]",
	"Ana Gomez <ana@example.com>", "a..b@example.com", ".a@example.com", "a@example..com",
	"ana@exámple.com", "anä@example.com", "a@b@c", "@example.com", "ana@", "", "a<b>@example.com",
}

// The assembled answer is byte for byte what the generated response writes, for users with no
// membership, several, site-limited ones with credentials, and names and emails that need
// escaping or the email parser.
func TestMeResponseIsTheGeneratedEncoding(t *testing.T) {
	t.Parallel()
	site1, site2 := uuid.New(), uuid.New()
	memberships := [][]db.ListMembershipsForUserRow{
		{},
		{{OrgID: uuid.New(), OrgName: "Harborview Kitchens", Role: "owner", SiteIds: []uuid.UUID{}, Credentials: []string{}}},
		{
			{OrgID: uuid.New(), OrgName: "St. Mary's <Diet> & Co", Role: "manager", SiteIds: []uuid.UUID{site1, site2}, Credentials: []string{"rd"}},
			{OrgID: uuid.New(), OrgName: "Café \u2028 \xff", Role: "viewer", SiteIds: nil, Credentials: nil},
		},
	}
	names := []string{"Ana Gomez", `Chef "Boss" \ <b>`, "tab\tnew\nline", "Zoë 🍮 \x00"}
	for _, ms := range memberships {
		for _, name := range names {
			for _, email := range emailCases {
				checkMe(t, UserView{ID: uuid.New(), Email: email, Name: name, Memberships: ms})
			}
		}
	}
}

// Whatever plainEmail accepts, net/mail parses to itself.
func FuzzPlainEmailParsesToItself(f *testing.F) {
	for _, e := range emailCases {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, email string) {
		if !plainEmail(email) {
			return
		}
		want, err := openapi_types.Email(email).MarshalJSON()
		if err != nil {
			t.Fatalf("plainEmail(%q) but net/mail refuses it: %v", email, err)
		}
		if got, _ := appendEmail(nil, email); !bytes.Equal(got, want) {
			t.Fatalf("appendEmail(%q) = %s, MarshalJSON = %s", email, got, want)
		}
	})
}

func checkMe(t *testing.T, u UserView) {
	t.Helper()
	want := httptest.NewRecorder()
	wantErr := api.GetMe200JSONResponse(ToAPIUser(u)).VisitGetMeResponse(want)
	var err error
	if u.membershipsJSON, err = newMembershipCache(1).put(u.ID, 1, u.Memberships); err != nil {
		t.Fatal(err)
	}
	got := httptest.NewRecorder()
	gotErr := meResponse{u}.VisitGetMeResponse(got)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("email %q: error %v, the generated response's %v", u.Email, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") || got.Body.String() != want.Body.String() {
		t.Fatalf("email %q name %q:\n got %d %s %s\nwant %d %s %s", u.Email, u.Name,
			got.Code, got.Header().Get("Content-Type"), got.Body, want.Code, want.Header().Get("Content-Type"), want.Body)
	}
}
