package devices

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sous-app/sous/internal/apierr"
)

// Kind is what a device is; it decides the shape of its config and what its state carries.
type Kind string

const (
	WallboardBOH  Kind = "wallboard_boh"
	WallboardFOH  Kind = "wallboard_foh"
	MenuBoard     Kind = "menu_board"
	TrayLine      Kind = "tray_line"
	Kiosk         Kind = "kiosk"
	SensorGateway Kind = "sensor_gateway"
)

// Kinds lists every kind, in the spec's order.
var Kinds = []Kind{WallboardBOH, WallboardFOH, MenuBoard, TrayLine, Kiosk, SensorGateway}

func (k Kind) valid() bool { return slices.Contains(Kinds, k) }

// A configField is one field of a kind's config: its default, and a check that returns the
// normalized value or what is wrong with the one given.
type configField struct {
	name  string
	def   any
	check func(v any) (any, string)
}

// configFields is the config schema of each kind; the spec documents the same fields
// (WallboardConfig, MenuBoardConfig, …) and the tests hold the two together.
var configFields = map[Kind][]configField{
	WallboardBOH: {
		stringList("stations", 20), boolean("showAlerts", true), boolean("showHandoffs", true),
		enum("theme", "dark", "dark", "light"), enum("orientation", "landscape", "landscape", "portrait"),
	},
	WallboardFOH: {
		stringList("stations", 20), boolean("showAlerts", false), boolean("showHandoffs", false),
		enum("theme", "dark", "dark", "light"), enum("orientation", "landscape", "landscape", "portrait"),
	},
	MenuBoard: {
		nullableName("dayPart"), boolean("showPrices", true), boolean("showAllergens", true),
		enum("theme", "dark", "dark", "light"), enum("orientation", "landscape", "landscape", "portrait"),
	},
	TrayLine: {
		stringList("units", 50), boolean("showDietCodes", true),
		enum("theme", "dark", "dark", "light"), enum("orientation", "landscape", "landscape", "portrait"),
	},
	Kiosk: {
		integer("idleTimeoutSeconds", 90, 10, 3600),
		enum("theme", "dark", "dark", "light"), enum("orientation", "portrait", "landscape", "portrait"),
	},
	SensorGateway: {
		integer("reportIntervalSeconds", 60, 15, 3600),
	},
}

// Config is a device's configuration, normalized for its kind: every field present.
type Config map[string]any

// normalizeConfig checks in against the kind's fields and fills in the defaults. Every problem
// is reported, each naming its field as config.<name>.
func normalizeConfig(kind Kind, in map[string]any) (Config, error) {
	fields := configFields[kind]
	out := make(Config, len(fields))
	var problems []apierr.FieldError
	known := make(map[string]bool, len(fields))
	for _, f := range fields {
		known[f.name] = true
		v, ok := in[f.name]
		if !ok {
			out[f.name] = f.def
			continue
		}
		norm, problem := f.check(v)
		if problem != "" {
			problems = append(problems, apierr.FieldError{Field: "config." + f.name, Message: problem})
			continue
		}
		out[f.name] = norm
	}
	unknown := make([]string, 0)
	for name := range in {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		problems = append(problems, apierr.FieldError{
			Field: "config." + name, Message: fmt.Sprintf("is not a field of %s devices", kind),
		})
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Field + ": " + p.Message
		}
		return nil, apierr.Invalid("Invalid config: "+strings.Join(msgs, "; "), problems...)
	}
	return out, nil
}

// decodeConfig reads a stored config. Rows are written normalized, so a decoding failure means
// a corrupt row.
func decodeConfig(raw []byte) (Config, error) {
	var c Config
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("devices: stored config: %w", err)
	}
	return c, nil
}

// dayPart is the pinned day part of a menu board's config, or "".
func (c Config) dayPart() string {
	s, _ := c["dayPart"].(string)
	return s
}

// showAlerts reports whether a wallboard lists its site's open alerts.
func (c Config) showAlerts() bool {
	b, _ := c["showAlerts"].(bool)
	return b
}

func boolean(name string, def bool) configField {
	return configField{name: name, def: def, check: func(v any) (any, string) {
		b, ok := v.(bool)
		if !ok {
			return nil, "must be true or false"
		}
		return b, ""
	}}
}

func enum(name, def string, values ...string) configField {
	return configField{name: name, def: def, check: func(v any) (any, string) {
		s, ok := v.(string)
		if !ok || !slices.Contains(values, s) {
			return nil, "must be one of: " + strings.Join(values, ", ")
		}
		return s, ""
	}}
}

func integer(name string, def, lo, hi int) configField {
	return configField{name: name, def: def, check: func(v any) (any, string) {
		var f float64
		switch n := v.(type) {
		case float64:
			f = n
		case json.Number:
			var err error
			if f, err = n.Float64(); err != nil {
				return nil, "must be a whole number"
			}
		default:
			return nil, "must be a whole number"
		}
		if f != math.Trunc(f) {
			return nil, "must be a whole number"
		}
		if f < float64(lo) || f > float64(hi) {
			return nil, fmt.Sprintf("must be between %d and %d", lo, hi)
		}
		return int(f), ""
	}}
}

// stringList is a list of at most max distinct names of 1 to 50 characters, trimmed.
func stringList(name string, max int) configField {
	return configField{name: name, def: []string{}, check: func(v any) (any, string) {
		list, ok := v.([]any)
		if !ok {
			return nil, "must be a list of names"
		}
		if len(list) > max {
			return nil, fmt.Sprintf("must have at most %d entries", max)
		}
		out := make([]string, 0, len(list))
		seen := map[string]bool{}
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Sprintf("entry %d must be a string", i)
			}
			s = strings.TrimSpace(s)
			switch {
			case s == "":
				return nil, fmt.Sprintf("entry %d must not be blank", i)
			case len([]rune(s)) > 50:
				return nil, fmt.Sprintf("entry %d must be at most 50 characters", i)
			case seen[strings.ToLower(s)]:
				return nil, fmt.Sprintf("%q appears twice", s)
			}
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
		return out, ""
	}}
}

// nullableName is null or a name of 1 to 50 characters, trimmed.
func nullableName(name string) configField {
	return configField{name: name, def: nil, check: func(v any) (any, string) {
		if v == nil {
			return nil, ""
		}
		s, ok := v.(string)
		if !ok {
			return nil, "must be a day part name or null"
		}
		s = strings.TrimSpace(s)
		if s == "" || len([]rune(s)) > 50 {
			return nil, "must be a day part name of 1 to 50 characters, or null"
		}
		return s, ""
	}}
}
