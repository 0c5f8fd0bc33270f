package config_test

import (
	"testing"
	"time"

	"github.com/sous-app/sous/internal/config"
)

func TestTimeouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env     map[string]string
		request time.Duration
		hl7     time.Duration
		connect time.Duration
		wantErr bool
	}{
		{env: nil, request: 15 * time.Second, hl7: time.Minute, connect: 2 * time.Second},
		{env: map[string]string{"SOUS_REQUEST_TIMEOUT": "30", "SOUS_HL7_REQUEST_TIMEOUT": "2m", "SOUS_DB_CONNECT_TIMEOUT": "500ms"},
			request: 30 * time.Second, hl7: 2 * time.Minute, connect: 500 * time.Millisecond},
		{env: map[string]string{"SOUS_REQUEST_TIMEOUT": "0"}, wantErr: true},
		{env: map[string]string{"SOUS_DB_CONNECT_TIMEOUT": "soon"}, wantErr: true},
	} {
		c, err := config.FromEnv(env(tc.env))
		if (err != nil) != tc.wantErr {
			t.Fatalf("%v: err %v", tc.env, err)
		}
		if tc.wantErr {
			continue
		}
		if c.RequestTimeout != tc.request || c.HL7RequestTimeout != tc.hl7 || c.DBConnectTimeout != tc.connect {
			t.Errorf("%v: got %v, %v, %v", tc.env, c.RequestTimeout, c.HL7RequestTimeout, c.DBConnectTimeout)
		}
	}
}
