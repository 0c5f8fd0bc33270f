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
		write   time.Duration
		wantErr bool
	}{
		{env: nil, request: 15 * time.Second, hl7: time.Minute, connect: 2 * time.Second, write: 30 * time.Second},
		{env: map[string]string{"SOUS_REQUEST_TIMEOUT": "30", "SOUS_HL7_REQUEST_TIMEOUT": "2m", "SOUS_DB_CONNECT_TIMEOUT": "500ms", "SOUS_WRITE_IDLE_TIMEOUT": "1m"},
			request: 30 * time.Second, hl7: 2 * time.Minute, connect: 500 * time.Millisecond, write: time.Minute},
		{env: map[string]string{"SOUS_REQUEST_TIMEOUT": "0"}, wantErr: true},
		{env: map[string]string{"SOUS_DB_CONNECT_TIMEOUT": "soon"}, wantErr: true},
		{env: map[string]string{"SOUS_WRITE_IDLE_TIMEOUT": "-5s"}, wantErr: true},
	} {
		c, err := config.FromEnv(env(tc.env))
		if (err != nil) != tc.wantErr {
			t.Fatalf("%v: err %v", tc.env, err)
		}
		if tc.wantErr {
			continue
		}
		if c.RequestTimeout != tc.request || c.HL7RequestTimeout != tc.hl7 || c.DBConnectTimeout != tc.connect || c.WriteIdleTimeout != tc.write {
			t.Errorf("%v: got %v, %v, %v, %v", tc.env, c.RequestTimeout, c.HL7RequestTimeout, c.DBConnectTimeout, c.WriteIdleTimeout)
		}
	}
}
