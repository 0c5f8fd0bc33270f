package records

import (
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
)

// Item outcomes.
const (
	outcomePass       = "pass"
	outcomeFail       = "fail"
	outcomeNotScored  = "not_scored"
	outcomeUnanswered = "unanswered"
)

// itemResult is one item of an inspection, evaluated.
type itemResult struct {
	Section string
	Item    api.InspectionItem
	Answer  *api.InspectionAnswer
	Outcome string
}

// scored is an inspection's evaluation.
type scored struct {
	Items           []itemResult
	Score, Max      decimal.Decimal
	Percent         *decimal.Decimal
	Result          string
	CriticalFailure bool
}

var hundred = decimal.NewFromInt(100)

// evaluate scores the answers against the sections. Each scored item (weight > 0, not text)
// earns weight × fraction: pass_fail 1 or 0, score score/maxScore, temperature 1 within the
// range else 0. An item fails when its fraction is below one half (pass_fail false, a score
// under half the maximum, a temperature out of range). With final, an unanswered scored or
// checkable item fails; otherwise it is "unanswered". The result is pass when the percentage
// reaches passPercent and no critical item failed; any failed critical item caps it at fail.
func evaluate(sections []api.InspectionSection, answers map[string]api.InspectionAnswer, passPercent int, final bool) scored {
	var s scored
	half := decimal.NewFromFloat(0.5)
	for _, sec := range sections {
		for _, it := range sec.Items {
			r := itemResult{Section: sec.Title, Item: it}
			weight := decimal.NewFromInt(int64(deref(it.Weight, 1)))
			if ans, ok := answers[it.Key]; ok {
				a := ans
				r.Answer = &a
			}
			if it.Kind == "text" {
				r.Outcome = outcomeNotScored
				if r.Answer == nil {
					r.Outcome = outcomeUnanswered
				}
				s.Items = append(s.Items, r)
				continue
			}
			s.Max = s.Max.Add(weight)
			fraction, answered := fractionOf(it, r.Answer)
			switch {
			case !answered && !final:
				r.Outcome = outcomeUnanswered
			case !answered || fraction.LessThan(half):
				r.Outcome = outcomeFail
			default:
				r.Outcome = outcomePass
			}
			if answered {
				s.Score = s.Score.Add(weight.Mul(fraction))
			}
			if r.Outcome == outcomeFail && deref(it.Critical, false) {
				s.CriticalFailure = true
			}
			s.Items = append(s.Items, r)
		}
	}
	s.Score = s.Score.RoundBank(2)
	s.Result = outcomePass
	if s.Max.IsPositive() {
		p := s.Score.Mul(hundred).Div(s.Max).RoundBank(1)
		s.Percent = &p
		if p.LessThan(decimal.NewFromInt(int64(passPercent))) {
			s.Result = outcomeFail
		}
	}
	if s.CriticalFailure {
		s.Result = outcomeFail
	}
	return s
}

// fractionOf is the share of its weight an answered item earns, and whether it was answered.
func fractionOf(it api.InspectionItem, a *api.InspectionAnswer) (decimal.Decimal, bool) {
	if a == nil {
		return decimal.Zero, false
	}
	switch it.Kind {
	case "pass_fail":
		if a.Passed == nil {
			return decimal.Zero, false
		}
		if *a.Passed {
			return decimal.NewFromInt(1), true
		}
		return decimal.Zero, true
	case "score":
		if a.Score == nil || it.MaxScore == nil {
			return decimal.Zero, false
		}
		return decimal.NewFromInt(int64(*a.Score)).Div(decimal.NewFromInt(int64(*it.MaxScore))), true
	case "temperature":
		if a.TemperatureF == nil {
			return decimal.Zero, false
		}
		t, err := decimal.NewFromString(*a.TemperatureF)
		if err != nil {
			return decimal.Zero, false
		}
		if it.MinF != nil {
			if lo, err := decimal.NewFromString(*it.MinF); err == nil && t.LessThan(lo) {
				return decimal.Zero, true
			}
		}
		if it.MaxF != nil {
			if hi, err := decimal.NewFromString(*it.MaxF); err == nil && t.GreaterThan(hi) {
				return decimal.Zero, true
			}
		}
		return decimal.NewFromInt(1), true
	}
	return decimal.Zero, false
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
