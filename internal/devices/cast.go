package devices

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/realtime"
)

// Cast types.
const (
	CastMessage = "message"
	CastImage   = "image"
	CastRecipe  = "recipe"
)

// storedCast is the cast_content column.
type storedCast struct {
	Type        string     `json:"type"`
	Title       *string    `json:"title,omitempty"`
	Text        *string    `json:"text,omitempty"`
	MediaKey    *uuid.UUID `json:"mediaKey,omitempty"`
	ContentType *string    `json:"contentType,omitempty"`
	Caption     *string    `json:"caption,omitempty"`
	RecipeID    *uuid.UUID `json:"recipeId,omitempty"`
	// Recipe is the card of a cast recipe, as it was when cast.
	Recipe map[string]any `json:"recipe,omitempty"`
	CastAt time.Time      `json:"castAt"`
}

// MediaPath is where a device fetches an image of its organization, with its token.
func MediaPath(key uuid.UUID) string { return "/v1/board/media/content/" + key.String() }

func decodeCast(raw []byte) (*api.Cast, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var s storedCast
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("devices: stored cast: %w", err)
	}
	c := &api.Cast{
		Type: api.CastType(s.Type), Title: s.Title, Text: s.Text, MediaKey: s.MediaKey, ContentType: s.ContentType,
		Caption: s.Caption, RecipeId: s.RecipeID, CastAt: s.CastAt,
	}
	if s.Recipe != nil {
		r := s.Recipe
		c.Recipe = &r
	}
	if s.MediaKey != nil {
		u := MediaPath(*s.MediaKey)
		c.MediaUrl = &u
	}
	return c, nil
}

// castFields checks that the request carries the fields of its type and none of another's.
func castFields(b api.CastRequest) (storedCast, error) {
	present := map[string]bool{
		"title": b.Title != nil, "text": b.Text != nil, "mediaKey": b.MediaKey != nil,
		"caption": b.Caption != nil, "recipeId": b.RecipeId != nil,
	}
	var required string
	var allowed []string
	switch string(b.Type) {
	case CastMessage:
		required, allowed = "text", []string{"title", "text"}
	case CastImage:
		required, allowed = "mediaKey", []string{"mediaKey", "caption"}
	case CastRecipe:
		required, allowed = "recipeId", []string{"recipeId"}
	default:
		return storedCast{}, apierr.InvalidField("type", "must be one of: message, image, recipe")
	}
	var problems []apierr.FieldError
	if !present[required] {
		problems = append(problems, apierr.FieldError{Field: required, Message: "is required for a " + string(b.Type) + " cast"})
	}
	for _, f := range []string{"title", "text", "mediaKey", "caption", "recipeId"} {
		if present[f] && !slices.Contains(allowed, f) {
			problems = append(problems, apierr.FieldError{Field: f, Message: "is not a field of a " + string(b.Type) + " cast"})
		}
	}
	s := storedCast{Type: string(b.Type), MediaKey: b.MediaKey, RecipeID: b.RecipeId}
	for _, t := range []struct {
		name string
		in   *string
		out  **string
	}{{"title", b.Title, &s.Title}, {"text", b.Text, &s.Text}, {"caption", b.Caption, &s.Caption}} {
		if t.in == nil {
			continue
		}
		v := strings.TrimSpace(*t.in)
		if v == "" {
			problems = append(problems, apierr.FieldError{Field: t.name, Message: "must not be blank"})
			continue
		}
		*t.out = &v
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Field + ": " + p.Message
		}
		return storedCast{}, apierr.Invalid("Invalid cast: "+strings.Join(msgs, "; "), problems...)
	}
	return s, nil
}

func (h *Handlers) CastToDevice(ctx context.Context, req api.CastToDeviceRequestObject) (api.CastToDeviceResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	cast, err := castFields(*req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	cast.CastAt = now
	var row db.Device
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		d, err := loadDevice(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		switch cast.Type {
		case CastImage:
			// An image of another site is not this screen's to show.
			m, err := q.GetMediaInfo(ctx, db.GetMediaInfoParams{OrgID: a.OrgID, ID: *cast.MediaKey})
			if pg.IsNoRows(err) || (err == nil && m.SiteID != nil && *m.SiteID != d.SiteID) {
				return apierr.NotFound("Media")
			}
			if err != nil {
				return err
			}
			cast.ContentType = &m.ContentType
		case CastRecipe:
			if h.kitchen == nil {
				return apierr.NotFound("Recipe")
			}
			card, err := h.kitchen.RecipeCard(ctx, q, a.OrgID, *cast.RecipeID)
			if err != nil {
				return err
			}
			cast.Recipe = card
		}
		raw, _ := json.Marshal(cast)
		if row, err = q.SetDeviceCast(ctx, db.SetDeviceCastParams{OrgID: a.OrgID, ID: req.Id, CastContent: raw, Now: now}); err != nil {
			return err
		}
		if err := realtime.Notify(ctx, tx, row.ID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, row.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	d, err := toAPIDevice(row)
	if err != nil {
		return nil, err
	}
	return api.CastToDevice200JSONResponse(d), nil
}

func (h *Handlers) ClearDeviceCast(ctx context.Context, req api.ClearDeviceCastRequestObject) (api.ClearDeviceCastResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := loadDevice(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if cur.CastContent != nil {
			if _, err := q.SetDeviceCast(ctx, db.SetDeviceCastParams{OrgID: a.OrgID, ID: req.Id, CastContent: nil, Now: now}); err != nil {
				return err
			}
			if err := realtime.Notify(ctx, tx, req.Id); err != nil {
				return err
			}
		}
		return audit.RecordSite(ctx, q, a.OrgID, cur.SiteID, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ClearDeviceCast204Response{}, nil
}
