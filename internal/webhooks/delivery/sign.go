package delivery

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Sign returns the x-service-signature value for body: lowercase hex HMAC-SHA256 keyed
// with the subscription's secret.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// Verify reports whether signature is Sign(secret, body). It is what a receiver runs on
// the raw request body, before any JSON parsing that could normalize the bytes.
//
// Surrounding whitespace is tolerated because some proxies and header parsers leave it in.
// Upper-case hex is accepted (it decodes to the same MAC). An empty secret never verifies,
// so a receiver that forgot to configure one fails closed instead of accepting MACs anyone
// can compute.
func Verify(secret, body []byte, signature string) bool {
	if len(secret) == 0 {
		return false
	}
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(got) != sha256.Size {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	// hmac.Equal takes time independent of where the MACs differ, so a forger cannot
	// learn the expected signature byte by byte from response timings.
	return hmac.Equal(got, mac.Sum(nil))
}
