package auth

import (
	"net/http"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/jsonenc"
)

// meResponse answers GET /auth/me with the bytes the generated GetMe200JSONResponse would
// write, assembled from the memberships' encoding kept in the cache (one per version) and the
// user's own three fields. Reflecting over the user and the memberships, and parsing the email
// again as openapi_types.Email does, cost /auth/me a tenth of its CPU; the call is made on every
// screen load of every client. TestMeResponseIsTheGeneratedEncoding holds the two byte for byte.
type meResponse struct{ u UserView }

func (r meResponse) VisitGetMeResponse(w http.ResponseWriter) error {
	if r.u.membershipsJSON == nil {
		return api.GetMe200JSONResponse(ToAPIUser(r.u)).VisitGetMeResponse(w)
	}
	b := make([]byte, 0, 96+len(r.u.Email)+len(r.u.Name)+len(r.u.membershipsJSON))
	// The fields in the order encoding/json writes api.User's: as declared.
	b = append(b, `{"email":`...)
	b, err := appendEmail(b, r.u.Email)
	if err != nil {
		return err
	}
	b = append(b, `,"id":"`...)
	b = append(b, r.u.ID.String()...)
	b = append(b, `","memberships":`...)
	b = append(b, r.u.membershipsJSON...)
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, r.u.Name)
	b = append(b, "}\n"...) // json.Encoder ends each value with a newline
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}

// appendEmail appends email as openapi_types.Email.MarshalJSON writes it: the address parsed by
// net/mail, then its Address encoded. A plain address (a dot-atom local part, an ASCII host name)
// parses to itself, so it is written without the parse; anything else goes through it.
func appendEmail(b []byte, email string) ([]byte, error) {
	if plainEmail(email) {
		return jsonenc.AppendString(b, email), nil
	}
	enc, err := openapi_types.Email(email).MarshalJSON()
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// plainEmail reports whether email is local@domain with a local part of dot-separated atoms
// (RFC 5322 atext) and a domain of dot-separated labels of letters, digits and hyphens: the form
// net/mail returns unchanged.
func plainEmail(email string) bool {
	at := -1
	for i := 0; i < len(email); i++ {
		if email[i] == '@' {
			if at >= 0 {
				return false
			}
			at = i
		}
	}
	if at < 0 {
		return false
	}
	return dotted(email[:at], isAtext) && dotted(email[at+1:], isLabelByte)
}

// dotted reports whether s is one or more non-empty runs of bytes that ok accepts, separated by
// single dots.
func dotted(s string, ok func(byte) bool) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.':
			if s[i-1] == '.' {
				return false
			}
		case !ok(s[i]):
			return false
		}
	}
	return true
}

func isAtext(c byte) bool {
	return isLabelByte(c) || (c != '.' && c != '"' && c != '(' && c != ')' && c != ',' && c != ':' &&
		c != ';' && c != '<' && c != '>' && c != '@' && c != '[' && c != ']' && c != '\\' && c > ' ' && c < 0x7f)
}

func isLabelByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}
