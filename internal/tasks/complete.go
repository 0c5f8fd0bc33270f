package tasks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/pg"
)

var (
	nine = decimal.NewFromInt(9)
	five = decimal.NewFromInt(5)
	t32  = decimal.NewFromInt(32)
)

// Severity of a task's alert by its priority.
func Severity(priority string) string {
	switch priority {
	case "low":
		return alerts.Info
	case "critical":
		return alerts.Critical
	}
	return alerts.Warning
}

func (h *Handlers) CompleteTask(ctx context.Context, req api.CompleteTaskRequestObject) (api.CompleteTaskResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err := lockTask(ctx, tx, a, req.Id)
		if err != nil {
			return err
		}
		if err := closedConflict(t); err != nil {
			return err
		}
		ev := api.Evidence{Note: b.Note}
		var problems []apierr.FieldError
		targetName := deref(t.TargetName)
		// The scan: a current tag of the organization whose target is the task's.
		code := ""
		if b.ScanCode != nil {
			code = strings.TrimSpace(*b.ScanCode)
		}
		switch {
		case code == "" && t.RequiresScan:
			problems = append(problems, apierr.FieldError{Field: "scanCode", Message: fmt.Sprintf("is required: scan the tag on %s", targetName)})
		case code != "":
			tag, err := q.FindTagByCode(ctx, db.FindTagByCodeParams{OrgID: a.OrgID, Code: code})
			switch {
			case pg.IsNoRows(err):
				problems = append(problems, apierr.FieldError{Field: "scanCode", Message: "is not a current tag of this organization"})
			case err != nil:
				return err
			case t.TargetType != nil && !hits(tag, t):
				problems = append(problems, apierr.FieldError{Field: "scanCode", Message: fmt.Sprintf("is a tag of another target, not of %s", targetName)})
			default:
				ev.Scan = &struct {
					Code  string    `json:"code"`
					TagId uuid.UUID `json:"tagId"`
				}{Code: strings.ToUpper(code), TagId: tag.ID}
			}
		}
		if t.RequiresPhoto {
			n, err := q.CountTaskPhotos(ctx, db.CountTaskPhotosParams{OrgID: a.OrgID, TaskID: t.ID})
			if err != nil {
				return err
			}
			if n == 0 {
				problems = append(problems, apierr.FieldError{Field: "photos", Message: "at least one photo is required: attach it first (POST /tasks/{id}/photos)"})
			}
		}
		var fahrenheit decimal.Decimal
		switch {
		case b.Temperature == nil && t.RequiresTemp:
			problems = append(problems, apierr.FieldError{Field: "temperature", Message: "is required"})
		case b.Temperature != nil:
			v, err := decimal.NewFromString(b.Temperature.Value)
			if err != nil {
				problems = append(problems, apierr.FieldError{Field: "temperature.value", Message: "must be a decimal number"})
				break
			}
			fahrenheit = v
			if b.Temperature.Unit == api.TemperatureUnitC {
				fahrenheit = v.Mul(nine).Div(five).Add(t32)
			}
			ev.Temperature = &struct {
				Fahrenheit string                      `json:"fahrenheit"`
				Unit       api.EvidenceTemperatureUnit `json:"unit"`
				Value      string                      `json:"value"`
			}{Fahrenheit: fahrenheit.String(), Unit: api.EvidenceTemperatureUnit(b.Temperature.Unit), Value: v.String()}
		}
		if len(problems) > 0 {
			msgs := make([]string, len(problems))
			for i, p := range problems {
				msgs[i] = p.Field + ": " + p.Message
			}
			return apierr.Invalid(strings.Join(msgs, "; "), problems...)
		}
		if ev.Temperature != nil && t.TempMinF != nil && t.TempMaxF != nil &&
			(fahrenheit.LessThan(*t.TempMinF) || fahrenheit.GreaterThan(*t.TempMaxF)) {
			ev.OutOfRange = true
			id, opened, err := alerts.OpenID(ctx, tx, now, alerts.Alert{
				OrgID: a.OrgID, SiteID: t.SiteID, Kind: alerts.KindTemperatureExcursion, Severity: Severity(t.Priority),
				Message:     fmt.Sprintf("%s: %s °F, outside %s–%s °F", t.Title, fahrenheit.String(), t.TempMinF.String(), t.TempMaxF.String()),
				SubjectType: "task", SubjectID: t.ID, Occurrence: now,
			})
			if err != nil {
				return err
			}
			if opened {
				ev.AlertId = &id
			}
		}
		raw, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		by := a.UserID()
		late := t.Status == statusMissed
		if err := q.CompleteTask(ctx, db.CompleteTaskParams{OrgID: a.OrgID, ID: t.ID, Now: now, CompletedBy: &by, Evidence: raw, Late: late}); err != nil {
			return err
		}
		if late {
			if err := alerts.Close(ctx, tx, now, a.OrgID, alerts.KindTaskMissed, t.ID); err != nil {
				return err
			}
		}
		return audit.RecordSite(ctx, q, a.OrgID, t.SiteID, t.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := h.view(ctx, a.OrgID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.CompleteTask200JSONResponse(out), nil
}

// hits reports whether a scanned tag's target is the task's target.
func hits(tag db.FindTagByCodeRow, t db.Task) bool {
	if tag.TargetType != *t.TargetType || t.TargetID == nil {
		return false
	}
	if tag.TargetType == "site" {
		return tag.TargetID != nil && *tag.TargetID == *t.TargetID
	}
	// Equipment and storage locations named by id: any current tag naming the same one.
	if tag.TargetID != nil && *tag.TargetID == *t.TargetID {
		return true
	}
	// Described by a label: the task's own tag, or another tag at the same site with the same
	// label.
	if tag.ID == *t.TargetID {
		return true
	}
	return tag.Label != nil && t.TargetName != nil && strings.EqualFold(*tag.Label, *t.TargetName) &&
		tag.SiteID != nil && *tag.SiteID == t.SiteID
}

func (h *Handlers) ReassignTask(ctx context.Context, req api.ReassignTaskRequestObject) (api.ReassignTaskResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err := lockTask(ctx, tx, a, req.Id)
		if err != nil {
			return err
		}
		if err := closedConflict(t); err != nil {
			return err
		}
		c := checker{ctx: ctx, q: q, org: a.OrgID, site: t.SiteID}
		user, pos, err := c.assignee("body", req.Body.UserId, req.Body.PositionId)
		if err != nil {
			return err
		}
		if err := q.AssignTask(ctx, db.AssignTaskParams{OrgID: a.OrgID, ID: t.ID, AssigneeUserID: user, AssigneePositionID: pos}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, t.SiteID, t.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := h.view(ctx, a.OrgID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.ReassignTask200JSONResponse(out), nil
}

func (h *Handlers) SetTaskDocs(ctx context.Context, req api.SetTaskDocsRequestObject) (api.SetTaskDocsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err := lockTask(ctx, tx, a, req.Id)
		if err != nil {
			return err
		}
		c := checker{ctx: ctx, q: q, org: a.OrgID, site: t.SiteID}
		ids, err := c.docs("docIds", &req.Body.DocIds)
		if err != nil {
			return err
		}
		if err := q.SetTaskDocs(ctx, db.SetTaskDocsParams{OrgID: a.OrgID, ID: t.ID, LinkedDocIds: ids}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, t.SiteID, t.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := h.view(ctx, a.OrgID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.SetTaskDocs200JSONResponse(out), nil
}

func (h *Handlers) AddTaskPhoto(ctx context.Context, req api.AddTaskPhotoRequestObject) (api.AddTaskPhotoResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	img, err := devices.ReadImage(req.Body)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(img.Data)
	now := h.clock.Now()
	var row db.InsertTaskPhotoRow
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err := lockTask(ctx, tx, a, req.Id)
		if err != nil {
			return err
		}
		if err := closedConflict(t); err != nil {
			return err
		}
		n, err := q.CountTaskPhotos(ctx, db.CountTaskPhotosParams{OrgID: a.OrgID, TaskID: t.ID})
		if err != nil {
			return err
		}
		if n >= devices.MaxPhotos {
			return apierr.InvalidField("file", fmt.Sprintf("the task has %d photos already, the most it takes", devices.MaxPhotos))
		}
		by := a.UserID()
		row, err = q.InsertTaskPhoto(ctx, db.InsertTaskPhotoParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, TaskID: t.ID, ContentType: img.ContentType, Size: int32(len(img.Data)),
			Sha256: sum[:], Filename: img.Filename, Data: img.Data, CreatedBy: &by, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, t.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.AddTaskPhoto201JSONResponse{Body: photoToAPI(a.OrgID, req.Id, row.ID, row.ContentType, row.Size, row.Filename, row.CreatedAt)}, nil
}

func (h *Handlers) GetTaskPhoto(ctx context.Context, req api.GetTaskPhotoRequestObject) (api.GetTaskPhotoResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p, err := db.New(h.pool).GetTaskPhotoContent(ctx, db.GetTaskPhotoContentParams{OrgID: a.OrgID, TaskID: req.Id, ID: req.MediaId})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(p.SiteID)) {
		return nil, apierr.NotFound("Photo")
	}
	if err != nil {
		return nil, err
	}
	cc := devices.MediaCacheControl
	return api.GetTaskPhoto200ImageResponse{
		Body: bytes.NewReader(p.Data), ContentType: p.ContentType, ContentLength: int64(len(p.Data)),
		Headers: api.GetTaskPhoto200ResponseHeaders{CacheControl: &cc},
	}, nil
}

func (h *Handlers) DeleteTaskPhoto(ctx context.Context, req api.DeleteTaskPhotoRequestObject) (api.DeleteTaskPhotoResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err := lockTask(ctx, tx, a, req.Id)
		if err != nil {
			return err
		}
		if t.Status == statusDone {
			return apierr.Conflict("The task is done; its evidence stays")
		}
		n, err := q.DeleteTaskPhoto(ctx, db.DeleteTaskPhotoParams{OrgID: a.OrgID, TaskID: t.ID, ID: req.MediaId})
		if err != nil {
			return err
		}
		if n == 0 {
			return apierr.NotFound("Photo")
		}
		return audit.RecordSite(ctx, q, a.OrgID, t.SiteID, req.MediaId, now)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteTaskPhoto204Response{}, nil
}
