package records

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

const defaultPassPercent = 80

var errTemplateNotFound = apierr.NotFound("Inspection template")

// checkSections validates a template's sections and fills the defaults (weight 1, not critical).
func checkSections(sections []api.InspectionSection) ([]api.InspectionSection, error) {
	keys := map[string]bool{}
	out := make([]api.InspectionSection, 0, len(sections))
	for si, s := range sections {
		title := strings.TrimSpace(s.Title)
		if title == "" {
			return nil, apierr.InvalidField(fmt.Sprintf("sections[%d].title", si), "must not be blank")
		}
		sec := api.InspectionSection{Title: title, Items: make([]api.InspectionItem, 0, len(s.Items))}
		for ii, it := range s.Items {
			field := fmt.Sprintf("sections[%d].items[%d]", si, ii)
			if keys[it.Key] {
				return nil, apierr.InvalidField(field+".key", "repeats an earlier item's key")
			}
			keys[it.Key] = true
			if strings.TrimSpace(it.Prompt) == "" {
				return nil, apierr.InvalidField(field+".prompt", "must not be blank")
			}
			if it.Weight == nil {
				w := 1
				if it.Kind == "text" {
					w = 0
				}
				it.Weight = &w
			}
			if it.Critical == nil {
				c := false
				it.Critical = &c
			}
			switch it.Kind {
			case "score":
				if it.MaxScore == nil {
					return nil, apierr.InvalidField(field+".maxScore", "is required for score items")
				}
			case "temperature":
				if it.MinF == nil && it.MaxF == nil {
					return nil, apierr.InvalidField(field, "a temperature item needs minF, maxF or both")
				}
				if it.MinF != nil && it.MaxF != nil {
					lo, _ := decimal.NewFromString(*it.MinF)
					hi, _ := decimal.NewFromString(*it.MaxF)
					if lo.GreaterThan(hi) {
						return nil, apierr.InvalidField(field, "minF must not be above maxF")
					}
				}
			case "text":
				if *it.Critical {
					return nil, apierr.InvalidField(field+".critical", "text items are not scored and cannot be critical")
				}
				zero := 0
				it.Weight = &zero // never scored
			}
			if it.Kind != "score" && it.MaxScore != nil {
				return nil, apierr.InvalidField(field+".maxScore", "is only for score items")
			}
			if it.Kind != "temperature" && (it.MinF != nil || it.MaxF != nil) {
				return nil, apierr.InvalidField(field, "minF and maxF are only for temperature items")
			}
			sec.Items = append(sec.Items, it)
		}
		out = append(out, sec)
	}
	return out, nil
}

func templateToAPI(t db.InspectionTemplate) (api.InspectionTemplate, error) {
	out := api.InspectionTemplate{Id: t.ID, Name: t.Name, PassPercent: int(t.PassPercent), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if err := json.Unmarshal(t.Sections, &out.Sections); err != nil {
		return out, err
	}
	return out, nil
}

func templateInput(b api.InspectionTemplateRequest) (name string, pass int32, sections []byte, err error) {
	name = strings.TrimSpace(b.Name)
	if name == "" {
		return "", 0, nil, apierr.InvalidField("name", "must not be blank")
	}
	pass = defaultPassPercent
	if b.PassPercent != nil {
		pass = int32(*b.PassPercent)
	}
	secs, err := checkSections(b.Sections)
	if err != nil {
		return "", 0, nil, err
	}
	sections, err = json.Marshal(secs)
	return name, pass, sections, err
}

func (h *Handlers) ListInspectionTemplates(ctx context.Context, req api.ListInspectionTemplatesRequestObject) (api.ListInspectionTemplatesResponseObject, error) {
	rows, err := db.New(h.pool).ListInspectionTemplates(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	out := make(api.ListInspectionTemplates200JSONResponse, 0, len(rows))
	for _, r := range rows {
		t, err := templateToAPI(r)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (h *Handlers) CreateInspectionTemplate(ctx context.Context, req api.CreateInspectionTemplateRequestObject) (api.CreateInspectionTemplateResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	name, pass, sections, err := templateInput(*req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var t db.InspectionTemplate
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if t, err = q.InsertInspectionTemplate(ctx, db.InsertInspectionTemplateParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, Name: name,
			PassPercent: pass, Sections: sections, Now: now}); err != nil {
			return err
		}
		return audit.Record(ctx, q, a.OrgID, t.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := templateToAPI(t)
	if err != nil {
		return nil, err
	}
	return api.CreateInspectionTemplate201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetInspectionTemplate(ctx context.Context, req api.GetInspectionTemplateRequestObject) (api.GetInspectionTemplateResponseObject, error) {
	t, err := db.New(h.pool).GetInspectionTemplate(ctx, db.GetInspectionTemplateParams{OrgID: req.OrgId, ID: req.Id})
	if pg.IsNoRows(err) {
		return nil, errTemplateNotFound
	}
	if err != nil {
		return nil, err
	}
	out, err := templateToAPI(t)
	if err != nil {
		return nil, err
	}
	return api.GetInspectionTemplate200JSONResponse(out), nil
}

func (h *Handlers) UpdateInspectionTemplate(ctx context.Context, req api.UpdateInspectionTemplateRequestObject) (api.UpdateInspectionTemplateResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	name, pass, sections, err := templateInput(*req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var t db.InspectionTemplate
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err = q.UpdateInspectionTemplate(ctx, db.UpdateInspectionTemplateParams{OrgID: a.OrgID, ID: req.Id, Name: name, PassPercent: pass, Sections: sections, Now: now})
		if pg.IsNoRows(err) {
			return errTemplateNotFound
		}
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, a.OrgID, t.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := templateToAPI(t)
	if err != nil {
		return nil, err
	}
	return api.UpdateInspectionTemplate200JSONResponse(out), nil
}
