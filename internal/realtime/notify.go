package realtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
)

// Channel is the PostgreSQL notification channel every replica listens on.
const Channel = "sous_device_hint"

// Execer is what Notify needs from the caller: pgx.Tx satisfies it, and so do
// sqlc's DBTX and a pool. Pass the transaction that makes the change: a
// notification sent outside it would reach devices before the change is
// visible (they would refetch the old state and then hear nothing more), or
// even when the change rolls back.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Payload prefixes. A bare UUID names a device, which keeps the common
// payload as short as possible.
const (
	orgPrefix     = "org:"
	revokePrefix  = "revoke:"
	replacePrefix = "replace:"
)

// tokensPerPayload keeps a batched payload (at most 45 bytes a token,
// separator included) near 4.5 kB, comfortably below PostgreSQL's limit of
// 8000 bytes, whatever the mix of token kinds.
const tokensPerPayload = 100

// Notify hints the given devices to refetch their state once tx commits.
// Nothing is sent if tx rolls back. Duplicates within one transaction cost
// nothing: PostgreSQL delivers identical notifications of a transaction once.
func Notify(ctx context.Context, tx Execer, deviceIDs ...uuid.UUID) error {
	tokens := make([]string, len(deviceIDs))
	for i, id := range deviceIDs {
		tokens[i] = id.String()
	}
	return send(ctx, tx, tokens)
}

// NotifyOrg hints every device of the organization, for changes that concern
// them all (a menu, the organization's settings), once tx commits.
func NotifyOrg(ctx context.Context, tx Execer, orgID uuid.UUID) error {
	return send(ctx, tx, []string{orgPrefix + orgID.String()})
}

// DisconnectDevice closes, once tx commits, every open socket of the given
// devices on every replica with status 4401. Call it in the transaction that
// unpairs a device so that its socket does not outlive its token.
func DisconnectDevice(ctx context.Context, tx Execer, deviceIDs ...uuid.UUID) error {
	tokens := make([]string, len(deviceIDs))
	for i, id := range deviceIDs {
		tokens[i] = revokePrefix + id.String()
	}
	return send(ctx, tx, tokens)
}

// ReplaceSockets closes, once tx commits, the given sockets (by the ids the ledger knows them
// by) with StatusReplaced, on whichever replica holds them: a newer connection of their device
// took their place.
func ReplaceSockets(ctx context.Context, tx Execer, socketIDs ...uuid.UUID) error {
	tokens := make([]string, len(socketIDs))
	for i, id := range socketIDs {
		tokens[i] = replacePrefix + id.String()
	}
	return send(ctx, tx, tokens)
}

// send queues the tokens, batched into payloads, with a single round trip
// however many payloads there are.
func send(ctx context.Context, tx Execer, tokens []string) error {
	tokens = dedupe(tokens)
	if len(tokens) == 0 {
		return nil
	}
	payloads := batch(tokens)
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, Channel, payloads)
	if err != nil {
		return fmt.Errorf("realtime: queue device hints: %w", err)
	}
	return nil
}

// batch joins tokens with commas into payloads of at most tokensPerPayload.
func batch(tokens []string) []string {
	payloads := make([]string, 0, (len(tokens)+tokensPerPayload-1)/tokensPerPayload)
	for len(tokens) > 0 {
		n := min(len(tokens), tokensPerPayload)
		payloads = append(payloads, strings.Join(tokens[:n], ","))
		tokens = tokens[n:]
	}
	return payloads
}

func dedupe(tokens []string) []string {
	if len(tokens) < 2 {
		return tokens
	}
	seen := make(map[string]struct{}, len(tokens))
	out := tokens[:0]
	for _, t := range tokens {
		if _, dup := seen[t]; !dup {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// hint is one token of a payload, parsed.
type hint struct {
	kind hintKind
	id   uuid.UUID
}

type hintKind uint8

const (
	hintDevice hintKind = iota
	hintOrg
	hintRevoke
	hintReplace
)

// parsePayload returns the hints of a payload and the tokens it could not
// read. Those are reported rather than fatal: during a rolling deploy a newer
// replica may send a token kind this one does not know yet.
func parsePayload(payload string) (hints []hint, bad []string) {
	for token := range strings.SplitSeq(payload, ",") {
		kind, rest := hintDevice, token
		if s, ok := strings.CutPrefix(token, orgPrefix); ok {
			kind, rest = hintOrg, s
		} else if s, ok := strings.CutPrefix(token, revokePrefix); ok {
			kind, rest = hintRevoke, s
		} else if s, ok := strings.CutPrefix(token, replacePrefix); ok {
			kind, rest = hintReplace, s
		}
		id, err := uuid.Parse(rest)
		if err != nil || len(rest) != 36 {
			bad = append(bad, token)
			continue
		}
		hints = append(hints, hint{kind: kind, id: id})
	}
	return hints, bad
}
