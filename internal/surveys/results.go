package surveys

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
)

type textCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

type textAnswer = struct {
	SubmittedAt time.Time `json:"submittedAt"`
	Text        string    `json:"text"`
}

// GetSurveyResults aggregates the submissions of the period per question. Text answers come
// newest first, a page of `limit` per text question; the Link header carries the next page.
func (h *Handlers) GetSurveyResults(ctx context.Context, req api.GetSurveyResultsRequestObject) (api.GetSurveyResultsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := db.New(h.pool)
	s, err := surveyFor(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	var after *textCursor
	if p.Cursor != nil {
		var c textCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		after = &c
	}
	limit := paging.Limit(p.Limit)
	qs, err := questionsOf(s)
	if err != nil {
		return nil, err
	}
	rows, err := q.ListSurveyResponses(ctx, db.ListSurveyResponsesParams{OrgID: req.OrgId, SurveyID: s.ID, FromAt: p.From, ToAt: p.To})
	if err != nil {
		return nil, err
	}
	type acc struct {
		answered int
		counts   map[string]int
		dist     map[string]int
		sum      int64
		texts    []textAnswer
	}
	accs := make([]*acc, len(qs))
	for i, qn := range qs {
		x := &acc{}
		switch qn.Type {
		case api.QuestionTypeSingleChoice, api.QuestionTypeMultiChoice:
			x.counts = map[string]int{}
			for _, o := range *qn.Options {
				x.counts[o] = 0
			}
		case api.QuestionTypeYesNo:
			x.counts = map[string]int{"yes": 0, "no": 0}
		case api.QuestionTypeRating, api.QuestionTypeNps:
			lo, hi := 1, defaultScaleMax
			if qn.Type == api.QuestionTypeNps {
				lo, hi = 0, 10
			} else if qn.ScaleMax != nil {
				hi = *qn.ScaleMax
			}
			x.dist = map[string]int{}
			for v := lo; v <= hi; v++ {
				x.dist[strconv.Itoa(v)] = 0
			}
		}
		accs[i] = x
	}
	// The text page: the next `limit` submissions (newest first, after the cursor) that answered
	// some text question; each text question lists its answers from those submissions.
	var last textCursor
	paged, more := 0, false
	for _, r := range rows {
		var answers map[string]any
		if err := json.Unmarshal(r.Answers, &answers); err != nil {
			return nil, err
		}
		inPage := false
		if after == nil || r.SubmittedAt.Before(after.At) || (r.SubmittedAt.Equal(after.At) && r.ID.String() < after.ID.String()) {
			for _, qn := range qs {
				if _, ok := answers[qn.Key]; ok && qn.Type == api.QuestionTypeText {
					inPage = true
				}
			}
		}
		if inPage && paged == limit {
			more, inPage = true, false
		} else if inPage {
			paged++
			last = textCursor{At: r.SubmittedAt, ID: r.ID}
		}
		for i, qn := range qs {
			v, ok := answers[qn.Key]
			if !ok {
				continue
			}
			x := accs[i]
			x.answered++
			switch qn.Type {
			case api.QuestionTypeSingleChoice:
				if s, ok := v.(string); ok {
					x.counts[s]++
				}
			case api.QuestionTypeMultiChoice:
				arr, _ := v.([]any)
				for _, o := range arr {
					if s, ok := o.(string); ok {
						x.counts[s]++
					}
				}
			case api.QuestionTypeYesNo:
				if b, _ := v.(bool); b {
					x.counts["yes"]++
				} else {
					x.counts["no"]++
				}
			case api.QuestionTypeRating, api.QuestionTypeNps:
				n, _ := integer(v)
				x.dist[strconv.Itoa(n)]++
				x.sum += int64(n)
			case api.QuestionTypeText:
				if s, _ := v.(string); inPage {
					x.texts = append(x.texts, textAnswer{SubmittedAt: r.SubmittedAt, Text: s})
				}
			}
		}
	}
	out := api.GetSurveyResults200JSONResponse{Body: api.SurveyResults{ResponseCount: len(rows), Questions: make([]api.QuestionResult, len(qs))}}
	for i, qn := range qs {
		x := accs[i]
		r := api.QuestionResult{Key: qn.Key, Type: qn.Type, Prompt: qn.Prompt, Answered: x.answered}
		if x.counts != nil {
			r.Counts = &x.counts
		}
		if x.dist != nil {
			r.Distribution = &x.dist
			if x.answered > 0 {
				m := decimal.NewFromInt(x.sum).DivRound(decimal.NewFromInt(int64(x.answered)), 4).RoundBank(2).StringFixed(2)
				r.Mean = &m
			}
		}
		if qn.Type == api.QuestionTypeNps {
			var pro, pas, det int
			for v, n := range x.dist {
				switch k, _ := strconv.Atoi(v); {
				case k >= 9:
					pro += n
				case k >= 7:
					pas += n
				default:
					det += n
				}
			}
			score := 0
			if x.answered > 0 {
				score = int(decimal.NewFromInt(int64(100*(pro-det))).DivRound(decimal.NewFromInt(int64(x.answered)), 4).RoundBank(0).IntPart())
			}
			r.Nps = &struct {
				Detractors int `json:"detractors"`
				Passives   int `json:"passives"`
				Promoters  int `json:"promoters"`
				Score      int `json:"score"`
			}{Detractors: det, Passives: pas, Promoters: pro, Score: score}
		}
		if qn.Type == api.QuestionTypeText {
			texts := x.texts
			if texts == nil {
				texts = []textAnswer{}
			}
			r.Texts = &texts
		}
		out.Body.Questions[i] = r
	}
	if more {
		out.Headers.Link = paging.Next(ctx, last)
	}
	return out, nil
}
