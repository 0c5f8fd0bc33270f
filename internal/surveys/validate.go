package surveys

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/apierr"
)

// maxText is the longest text answer, in characters.
const maxText = 2000

const defaultScaleMax = 5

// cleanQuestions checks a survey's questions and returns them normalized (a rating's scaleMax
// filled in, options trimmed), or a 400 naming each problem.
func cleanQuestions(qs []api.Question) ([]api.Question, error) {
	var details []apierr.FieldError
	bad := func(i int, field, msg string) {
		details = append(details, apierr.FieldError{Field: fmt.Sprintf("questions[%d].%s", i, field), Message: msg})
	}
	seen := map[string]bool{}
	out := make([]api.Question, len(qs))
	for i, q := range qs {
		q.Prompt = strings.TrimSpace(q.Prompt)
		if q.Prompt == "" {
			bad(i, "prompt", "must not be blank")
		}
		if seen[q.Key] {
			bad(i, "key", "is used by another question")
		}
		seen[q.Key] = true
		choice := q.Type == api.QuestionTypeSingleChoice || q.Type == api.QuestionTypeMultiChoice
		switch {
		case choice && (q.Options == nil || len(*q.Options) < 2):
			bad(i, "options", "a choice question needs at least 2 options")
		case choice:
			opts := make([]string, 0, len(*q.Options))
			for _, o := range *q.Options {
				o = strings.TrimSpace(o)
				if o == "" || slices.Contains(opts, o) {
					bad(i, "options", "options must be distinct and not blank")
					break
				}
				opts = append(opts, o)
			}
			q.Options = &opts
		case q.Options != nil:
			bad(i, "options", "only choice questions take options")
		}
		switch {
		case q.Type == api.QuestionTypeRating && q.ScaleMax == nil:
			n := defaultScaleMax
			q.ScaleMax = &n
		case q.Type != api.QuestionTypeRating && q.ScaleMax != nil:
			bad(i, "scaleMax", "only rating questions take scaleMax")
		}
		out[i] = q
	}
	if len(details) > 0 {
		return nil, apierr.Invalid("The survey's questions are invalid", details...)
	}
	return out, nil
}

// validateAnswers checks a submission against the questions: every required question answered,
// each value of its type and range, choices among the options, texts at most 2,000 characters,
// no unknown keys. It returns the answers to keep (null values dropped).
func validateAnswers(qs []api.Question, answers map[string]any) (map[string]any, error) {
	var details []apierr.FieldError
	bad := func(key, msg string) {
		details = append(details, apierr.FieldError{Field: "answers." + key, Message: msg})
	}
	byKey := make(map[string]api.Question, len(qs))
	for _, q := range qs {
		byKey[q.Key] = q
	}
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	kept := map[string]any{}
	for _, k := range keys {
		if _, ok := byKey[k]; !ok {
			bad(k, "is not a question of this survey")
		}
	}
	for _, q := range qs {
		v, present := answers[q.Key]
		if !present || v == nil {
			if q.Required {
				bad(q.Key, "is required")
			}
			continue
		}
		if msg := checkAnswer(q, v); msg != "" {
			bad(q.Key, msg)
			continue
		}
		if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
			if q.Required {
				bad(q.Key, "is required")
			}
			continue
		}
		kept[q.Key] = v
	}
	if len(details) > 0 {
		return nil, apierr.Invalid("Some answers are invalid", details...)
	}
	return kept, nil
}

func integer(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1e9 {
			return int(n), true
		}
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil && math.Abs(float64(i)) < 1e9
	}
	return 0, false
}

func checkAnswer(q api.Question, v any) string {
	switch q.Type {
	case api.QuestionTypeRating:
		n, ok := integer(v)
		top := defaultScaleMax
		if q.ScaleMax != nil {
			top = *q.ScaleMax
		}
		if !ok || n < 1 || n > top {
			return fmt.Sprintf("must be a whole number from 1 to %d", top)
		}
	case api.QuestionTypeNps:
		if n, ok := integer(v); !ok || n < 0 || n > 10 {
			return "must be a whole number from 0 to 10"
		}
	case api.QuestionTypeYesNo:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case api.QuestionTypeText:
		s, ok := v.(string)
		if !ok {
			return "must be text"
		}
		if utf8.RuneCountInString(s) > maxText {
			return fmt.Sprintf("must be at most %d characters", maxText)
		}
	case api.QuestionTypeSingleChoice:
		s, ok := v.(string)
		if !ok || !slices.Contains(*q.Options, s) {
			return "must be one of the options"
		}
	case api.QuestionTypeMultiChoice:
		arr, ok := v.([]any)
		if !ok {
			return "must be an array of options"
		}
		if len(arr) == 0 && q.Required {
			return "is required"
		}
		seen := map[string]bool{}
		for _, x := range arr {
			s, ok := x.(string)
			if !ok || !slices.Contains(*q.Options, s) || seen[s] {
				return "must be distinct options of the question"
			}
			seen[s] = true
		}
	default:
		return "has an unknown type"
	}
	return ""
}
