package delivery

import "testing"

func TestSignKnownVector(t *testing.T) {
	// RFC 4231 test case 2.
	got := Sign([]byte("Jefe"), []byte("what do ya want for nothing?"))
	want := "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	if got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	secret := []byte("whsec_test")
	body := []byte(`{"event":"e","data":{}}`)
	sig := Sign(secret, body)
	upper := []byte(sig)
	for i, c := range upper {
		if c >= 'a' && c <= 'f' {
			upper[i] = c - 'a' + 'A'
		}
	}
	flipped := []byte(sig)
	if flipped[0] == '0' {
		flipped[0] = '1'
	} else {
		flipped[0] = '0'
	}

	tests := []struct {
		name   string
		secret []byte
		body   []byte
		sig    string
		want   bool
	}{
		{"valid", secret, body, sig, true},
		{"surrounding whitespace", secret, body, " \t" + sig + "\r\n", true},
		{"upper-case hex", secret, body, string(upper), true},
		{"one digit changed", secret, body, string(flipped), false},
		{"body changed", secret, []byte(`{"event":"e","data":{} }`), sig, false},
		{"wrong secret", []byte("whsec_other"), body, sig, false},
		{"empty secret", nil, body, Sign(nil, body), false},
		{"empty signature", secret, body, "", false},
		{"truncated", secret, body, sig[:62], false},
		{"too long", secret, body, sig + "00", false},
		{"odd length", secret, body, sig[:63], false},
		{"non-hex", secret, body, "zz" + sig[2:], false},
		{"prefixed", secret, body, "sha256=" + sig, false},
		{"inner space", secret, body, sig[:32] + " " + sig[32:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Verify(tt.secret, tt.body, tt.sig); got != tt.want {
				t.Errorf("Verify = %v, want %v", got, tt.want)
			}
		})
	}
}
