package tasks_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/tasks"
)

type task struct {
	ID                 uuid.UUID   `json:"id"`
	SiteID             uuid.UUID   `json:"siteId"`
	Title              string      `json:"title"`
	Kind               string      `json:"kind"`
	DueAt              string      `json:"dueAt"`
	Priority           string      `json:"priority"`
	Status             string      `json:"status"`
	RequiresScan       bool        `json:"requiresScan"`
	RequiresPhoto      bool        `json:"requiresPhoto"`
	RequiresTemp       bool        `json:"requiresTemp"`
	LinkedDocIDs       []uuid.UUID `json:"linkedDocIds"`
	AttachmentMediaIDs []uuid.UUID `json:"attachmentMediaIds"`
	Source             string      `json:"source"`
	SourceID           *uuid.UUID  `json:"sourceId"`
	Required           bool        `json:"required"`
	Assignee           *struct {
		UserID     *uuid.UUID `json:"userId"`
		PositionID *uuid.UUID `json:"positionId"`
		Name       string     `json:"name"`
	} `json:"assignee"`
	Target *struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
		Name string    `json:"name"`
	} `json:"target"`
	Evidence *struct {
		Scan *struct {
			TagID uuid.UUID `json:"tagId"`
		} `json:"scan"`
		Temperature *struct {
			Value, Unit, Fahrenheit string
		} `json:"temperature"`
		Note       *string    `json:"note"`
		OutOfRange bool       `json:"outOfRange"`
		AlertID    *uuid.UUID `json:"alertId"`
	} `json:"evidence"`
	Late        bool       `json:"late"`
	CompletedAt *time.Time `json:"completedAt"`
	CompletedBy *uuid.UUID `json:"completedBy"`
	Photos      []struct {
		MediaID uuid.UUID `json:"mediaId"`
		URL     string    `json:"url"`
	} `json:"photos"`
	Guides []struct {
		ID    uuid.UUID `json:"id"`
		Title string    `json:"title"`
	} `json:"guides"`
}

type alert struct {
	ID       uuid.UUID `json:"id"`
	Kind     string    `json:"kind"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	Status   string    `json:"status"`
	Subject  struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"subject"`
}

// kitchen is an organization with a site in Chicago, its owner, a position and a tag on the
// walk-in cooler there.
type kitchen struct {
	t         *testing.T
	env       *apitest.Env
	owner     apitest.Session
	org, site uuid.UUID
	position  uuid.UUID
	tagID     uuid.UUID
	tagCode   string
}

func newKitchen(t *testing.T, opts ...apitest.Option) *kitchen {
	env := apitest.New(t, opts...)
	owner, org := env.NewOwner("Harborview Kitchens")
	k := &kitchen{t: t, env: env, owner: owner, org: org}
	k.site = env.Site(owner.AccessToken, org, "Main Kitchen")
	k.position = k.create("positions", map[string]any{"siteId": k.site, "name": "Opening cook"})
	var tag struct {
		ID   uuid.UUID `json:"id"`
		Code string    `json:"code"`
	}
	k.call(http.MethodPost, "tags", owner.AccessToken).JSON(map[string]any{"targetType": "equipment", "label": "Walk-in cooler", "siteId": k.site}).
		Do().Expect(http.StatusCreated).Decode(&tag)
	k.tagID, k.tagCode = tag.ID, tag.Code
	return k
}

func (k *kitchen) call(method, path, token string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(token)
}

func (k *kitchen) create(collection string, body any) uuid.UUID {
	k.t.Helper()
	var out struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodPost, collection, k.owner.AccessToken).JSON(body).Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID
}

func (k *kitchen) newTask(body map[string]any) task {
	k.t.Helper()
	b := map[string]any{"siteId": k.site, "title": "Wipe down the line", "dueAt": "2026-03-02 14:00:00-06:00"}
	for key, v := range body {
		b[key] = v
	}
	var out task
	k.call(http.MethodPost, "tasks", k.owner.AccessToken).JSON(b).Do().Expect(http.StatusCreated).Decode(&out)
	return out
}

func (k *kitchen) get(id uuid.UUID) task {
	k.t.Helper()
	var out task
	k.call(http.MethodGet, "tasks/"+id.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (k *kitchen) list(query string) []task {
	k.t.Helper()
	var out []task
	k.call(http.MethodGet, "tasks"+query, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (k *kitchen) alerts(query string) []alert {
	k.t.Helper()
	var out []alert
	k.call(http.MethodGet, "alerts"+query, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// advance moves the clock and signs the owner in again (access tokens last 15 minutes).
func (k *kitchen) advance(d time.Duration) {
	k.t.Helper()
	k.env.Clock.Advance(d)
	k.owner = k.env.SignIn(k.owner.User.Email)
}

// set puts the clock at t and signs the owner in again.
func (k *kitchen) set(t time.Time) {
	k.t.Helper()
	k.env.Clock.Set(t)
	k.owner = k.env.SignIn(k.owner.User.Email)
}

func (k *kitchen) sweep() {
	k.t.Helper()
	if err := tasks.SweepMissed(k.t.Context(), k.env.Pool, k.env.Clock.Now()); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kitchen) plan() {
	k.t.Helper()
	if err := tasks.PlanAll(k.t.Context(), k.env.Pool, k.env.Clock.Now(), quiet); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kitchen) count(sql string, args ...any) int {
	k.t.Helper()
	var n int
	if err := k.env.Pool.QueryRow(k.t.Context(), sql, args...).Scan(&n); err != nil {
		k.t.Fatal(err)
	}
	return n
}

// events returns the data of the organization's alert.created events, oldest first.
func (k *kitchen) events() []map[string]any {
	k.t.Helper()
	rows, err := k.env.Pool.Query(k.t.Context(), `SELECT data FROM events WHERE org_id = $1 AND name = 'alert.created' ORDER BY at, id`, k.org)
	if err != nil {
		k.t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			k.t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		out = append(out, m)
	}
	return out
}

var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")

func multipartFile(name, contentType string, data []byte) (string, []byte) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + name + `"`}
	h["Content-Type"] = []string{contentType}
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(data)
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func (k *kitchen) photo(id uuid.UUID, token string) *apitest.Response {
	ct, body := multipartFile("cooler.png", "image/png", onePixelPNG)
	return k.call(http.MethodPost, "tasks/"+id.String()+"/photos", token).Raw(ct, body).Do()
}
