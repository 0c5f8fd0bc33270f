package delivery

import "testing"

func TestValidateURL(t *testing.T) {
	tests := []struct {
		url          string
		allowPrivate bool
		want         string // error message; empty for valid
	}{
		{"https://hooks.example.com/sous", false, ""},
		{"https://hooks.example.com:8443/sous?k=v", false, ""},
		{"HTTPS://Hooks.Example.com/", false, ""},
		{"https://hooks.example.com.", false, ""},
		{"https://93.184.215.14/hook", false, ""},
		{"https://[2606:4700:4700::1111]/hook", false, ""},

		{"", false, "must not be empty"},
		{"   ", false, "must not be empty"},
		{"not a url", false, "must use https"},
		{"://missing-scheme", false, "is not a valid URL"},
		{"https:example.com", false, "is not a valid URL"},
		{"http://hooks.example.com/", false, "must use https"},
		{"ftp://hooks.example.com/", false, "must use https"},
		{"ftp://hooks.example.com/", true, "must use http or https"},
		{"https:///path", false, "must include a host"},
		{"https://user:pass@hooks.example.com/", false, "must not contain a user name or password"},
		{"https://token@hooks.example.com/", false, "must not contain a user name or password"},
		{"https://hooks.example.com/#frag", false, "must not contain a fragment"},
		{"https://hooks.example.com/#", false, "must not contain a fragment"},
		{"https://hooks.example.com:0/", false, "must have a port between 1 and 65535"},
		{"https://hooks.example.com:65536/", false, "must have a port between 1 and 65535"},
		{"https://hooks.example.com:/", false, "must have a port between 1 and 65535"},
		{"https://hooks.example.com:https/", false, "is not a valid URL"},
		{"https://10.0.0.5/hook", false, "must not point to a private or reserved address (10.0.0.5)"},
		{"https://127.0.0.1:8443/", false, "must not point to a private or reserved address (127.0.0.1)"},
		{"https://169.254.169.254/latest/meta-data/", false, "must not point to a private or reserved address (169.254.169.254)"},
		{"https://[::1]/", false, "must not point to a private or reserved address (::1)"},
		{"https://[::ffff:10.0.0.5]/", false, "must not point to a private or reserved address (::ffff:10.0.0.5)"},
		{"https://[fe80::1%25eth0]/", false, "must not point to a private or reserved address (fe80::1)"},
		{"https://localhost/", false, "must not point to localhost"},
		{"https://api.LOCALHOST./", false, "must not point to api.LOCALHOST."},

		// Local development.
		{"http://localhost:8080/hook", true, ""},
		{"http://127.0.0.1:9000/", true, ""},
		{"https://10.0.0.5/", true, ""},
		{"http://user@localhost/", true, "must not contain a user name or password"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := ValidateURL(tt.url, tt.allowPrivate)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ValidateURL(%q, %v) = %q, want %q", tt.url, tt.allowPrivate, got, tt.want)
			}
		})
	}
}
