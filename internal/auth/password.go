package auth

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/sous-app/sous/internal/apierr"
)

// HashParams are argon2id's cost settings. They are stored in every hash, so raising them later
// keeps old hashes verifiable.
type HashParams struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// OWASPParams is OWASP's argon2id recommendation (19 MiB, 2 iterations, 1 lane).
var OWASPParams = HashParams{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32

	MinPasswordLen = 12
	MaxPasswordLen = 256
)

// HashPassword returns a PHC-format argon2id hash of password.
func HashPassword(password string, p HashParams) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("malformed password hash")

// VerifyPassword reports whether password matches hash, comparing in constant time.
func VerifyPassword(password, hash string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var p HashParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

//go:embed common-passwords.txt
var commonPasswordsText string

// commonPasswords holds lower-cased passwords too common to allow, whatever their length.
var commonPasswords = func() map[string]struct{} {
	m := make(map[string]struct{})
	sc := bufio.NewScanner(strings.NewReader(commonPasswordsText))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			m[strings.ToLower(line)] = struct{}{}
		}
	}
	return m
}()

// CheckNewPassword applies the password policy: 12 to 256 characters, no composition rules
// (NIST SP 800-63B), not a common password, not the account's own email or name, and not one
// character repeated or a keyboard run.
func CheckNewPassword(field, password, email, name string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinPasswordLen:
		return apierr.InvalidField(field, fmt.Sprintf("must be at least %d characters", MinPasswordLen))
	case n > MaxPasswordLen:
		return apierr.InvalidField(field, fmt.Sprintf("must be at most %d characters", MaxPasswordLen))
	}
	lower := strings.ToLower(password)
	if _, common := commonPasswords[lower]; common || isTrivial(lower) {
		return apierr.InvalidField(field, "is too common or easy to guess; choose a longer, less predictable passphrase")
	}
	if strings.EqualFold(password, email) || (name != "" && strings.EqualFold(password, name)) {
		return apierr.InvalidField(field, "must not be your email address or name")
	}
	return nil
}

// isTrivial catches what no blocklist lists in full: one character repeated, or a run along
// the alphabet, the digits or the keyboard's top rows.
func isTrivial(s string) bool {
	if strings.Count(s, s[:1]) == len(s) {
		return true
	}
	for _, run := range []string{
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
		"01234567890123456789012345678901234567890",
		"98765432109876543210987654321098765432109",
		"qwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjklzxcvbnm",
		"1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p",
	} {
		if strings.Contains(run, s) {
			return true
		}
	}
	return false
}
