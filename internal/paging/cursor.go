package paging

import (
	"encoding/base64"
	"encoding/json"

	"github.com/sous-app/sous/internal/apierr"
)

// Cursors are opaque to clients: base64url of a small JSON object holding the sort key of the
// page's last row, from which the next page resumes.

// EncodeCursor makes the cursor of a keyset position.
func EncodeCursor(position any) string {
	raw, _ := json.Marshal(position)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// DecodeCursor reads a cursor into position; a cursor the endpoint did not issue is a 400 on
// the cursor parameter. valid, when given, checks the decoded position (for example a non-nil id).
func DecodeCursor(cursor string, position any, valid ...func() bool) error {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	ok := err == nil && json.Unmarshal(raw, position) == nil
	for _, v := range valid {
		ok = ok && v()
	}
	if !ok {
		return apierr.InvalidField("cursor", "is not a cursor this endpoint issued")
	}
	return nil
}
