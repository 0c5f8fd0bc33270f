-- name: CreateCateringClient :one
INSERT INTO catering_clients (id, org_id, name, company, email, phone, billing_address, created_at, updated_at)
VALUES (@id, @org_id, @name, sqlc.narg(company), sqlc.narg(email), sqlc.narg(phone), sqlc.narg(billing_address), @now, @now)
RETURNING *;

-- name: UpdateCateringClient :one
UPDATE catering_clients
SET name = @name, company = sqlc.narg(company), email = sqlc.narg(email), phone = sqlc.narg(phone),
    billing_address = sqlc.narg(billing_address), updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetCateringClient :one
SELECT * FROM catering_clients WHERE org_id = @org_id AND id = @id;

-- name: ListCateringClients :many
SELECT * FROM catering_clients
WHERE org_id = @org_id
  AND (sqlc.narg(cursor_name)::text IS NULL OR (name, id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
ORDER BY name, id
LIMIT @max_rows;

-- name: CreateCateringEvent :one
INSERT INTO catering_events (id, org_id, client_id, site_id, name, starts_at, ends_at, guest_count, venue, status, created_at, updated_at)
VALUES (@id, @org_id, @client_id, @site_id, @name, @starts_at, @ends_at, @guest_count, sqlc.narg(venue), @status, @now, @now)
RETURNING *;

-- name: UpdateCateringEvent :one
UPDATE catering_events
SET client_id = @client_id, site_id = @site_id, name = @name, starts_at = @starts_at, ends_at = @ends_at,
    guest_count = @guest_count, venue = sqlc.narg(venue), status = @status, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetCateringEvent :one
SELECT * FROM catering_events WHERE org_id = @org_id AND id = @id;

-- name: GetCateringEventForUpdate :one
SELECT * FROM catering_events WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: SetCateringEventStatus :exec
UPDATE catering_events SET status = @status, updated_at = @now WHERE org_id = @org_id AND id = @id;

-- name: ListCateringEvents :many
SELECT * FROM catering_events
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (starts_at, id) > (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY starts_at, id
LIMIT @max_rows;

-- name: CreateCateringQuote :one
INSERT INTO catering_quotes (id, org_id, event_id, status, lines, service_charge_bps, tax_rate_bps, deposit_percent,
    subtotal_cents, service_charge_cents, tax_cents, total_cents, deposit_cents, valid_until, terms, created_at, updated_at)
VALUES (@id, @org_id, @event_id, 'draft', @lines, @service_charge_bps, @tax_rate_bps, @deposit_percent,
    @subtotal_cents, @service_charge_cents, @tax_cents, @total_cents, @deposit_cents, @valid_until, @terms, @now, @now)
RETURNING *;

-- name: UpdateCateringQuote :one
-- A new version when the quote had left draft; it returns to draft.
UPDATE catering_quotes
SET lines = @lines, service_charge_bps = @service_charge_bps, tax_rate_bps = @tax_rate_bps,
    deposit_percent = @deposit_percent, subtotal_cents = @subtotal_cents, service_charge_cents = @service_charge_cents,
    tax_cents = @tax_cents, total_cents = @total_cents, deposit_cents = @deposit_cents, valid_until = @valid_until,
    terms = @terms, version = version + CASE WHEN status = 'draft' THEN 0 ELSE 1 END,
    status = 'draft', sent_at = NULL, declined_at = NULL, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetCateringQuote :one
SELECT sqlc.embed(q), e.site_id, s.timezone
FROM catering_quotes q
JOIN catering_events e ON e.org_id = q.org_id AND e.id = q.event_id
JOIN sites s ON s.org_id = e.org_id AND s.id = e.site_id
WHERE q.org_id = @org_id AND q.id = @id;

-- name: GetCateringQuoteForUpdate :one
SELECT sqlc.embed(q), e.site_id, s.timezone
FROM catering_quotes q
JOIN catering_events e ON e.org_id = q.org_id AND e.id = q.event_id
JOIN sites s ON s.org_id = e.org_id AND s.id = e.site_id
WHERE q.org_id = @org_id AND q.id = @id
FOR UPDATE OF q;

-- name: ListCateringQuotes :many
SELECT sqlc.embed(q), e.site_id, s.timezone
FROM catering_quotes q
JOIN catering_events e ON e.org_id = q.org_id AND e.id = q.event_id
JOIN sites s ON s.org_id = e.org_id AND s.id = e.site_id
WHERE q.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR e.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(event_id)::uuid IS NULL OR q.event_id = sqlc.narg(event_id)::uuid)
  AND (sqlc.narg(cursor_id)::uuid IS NULL OR q.id < sqlc.narg(cursor_id)::uuid)
ORDER BY q.id DESC
LIMIT @max_rows;

-- name: MarkCateringQuoteSent :one
UPDATE catering_quotes SET status = 'sent', sent_at = coalesce(sent_at, @now::timestamptz), updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: AcceptCateringQuote :one
UPDATE catering_quotes
SET status = 'accepted', accepted_at = @now::timestamptz, accepted_by_name = @name::text, accepted_by_email = sqlc.narg(email),
    accepted_via = @via::text, updated_at = @now::timestamptz
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: DeclineCateringQuote :one
UPDATE catering_quotes SET status = 'declined', declined_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: CountAcceptedQuotesOfEvent :one
SELECT count(*)::int FROM catering_quotes WHERE org_id = @org_id AND event_id = @event_id AND status = 'accepted';

-- name: GetSharedQuote :one
-- Everything the public quote page shows, from the quote id a capability token opened.
SELECT sqlc.embed(q), e.name AS event_name, e.starts_at, e.ends_at, e.venue, e.guest_count,
       c.name AS client_name, s.timezone, o.name AS org_name, o.brand_primary, o.brand_accent
FROM catering_quotes q
JOIN catering_events e ON e.org_id = q.org_id AND e.id = q.event_id
JOIN catering_clients c ON c.org_id = e.org_id AND c.id = e.client_id
JOIN sites s ON s.org_id = e.org_id AND s.id = e.site_id
JOIN orgs o ON o.id = q.org_id
WHERE q.org_id = @org_id AND q.id = @id;

-- name: CreateCateringInvoice :one
INSERT INTO catering_invoices (id, org_id, quote_id, event_id, kind, status, lines, total_cents, number, created_at)
VALUES (@id, @org_id, @quote_id, @event_id, @kind, 'open', @lines, @total_cents, @number, @now)
RETURNING *;

-- name: GetCateringInvoice :one
SELECT sqlc.embed(i), e.site_id
FROM catering_invoices i
JOIN catering_events e ON e.org_id = i.org_id AND e.id = i.event_id
WHERE i.org_id = @org_id AND i.id = @id;

-- name: GetCateringInvoiceForUpdate :one
SELECT sqlc.embed(i), e.site_id
FROM catering_invoices i
JOIN catering_events e ON e.org_id = i.org_id AND e.id = i.event_id
WHERE i.org_id = @org_id AND i.id = @id
FOR UPDATE OF i;

-- name: ListCateringInvoices :many
SELECT sqlc.embed(i), e.site_id
FROM catering_invoices i
JOIN catering_events e ON e.org_id = i.org_id AND e.id = i.event_id
WHERE i.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR e.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(quote_id)::uuid IS NULL OR i.quote_id = sqlc.narg(quote_id)::uuid)
  AND (sqlc.narg(cursor_id)::uuid IS NULL OR i.id < sqlc.narg(cursor_id)::uuid)
ORDER BY i.id DESC
LIMIT @max_rows;

-- name: LiveInvoicesOfQuote :many
-- The contract's invoices that are not void, locked, so two invoices of a kind cannot race.
SELECT * FROM catering_invoices
WHERE org_id = @org_id AND quote_id = @quote_id AND status <> 'void'
FOR UPDATE;

-- name: InsertCateringPayment :one
INSERT INTO catering_payments (id, org_id, invoice_id, amount_cents, method, paid_at, reference, recorded_by, created_at)
VALUES (@id, @org_id, @invoice_id, @amount_cents, @method, @paid_at, sqlc.narg(reference), sqlc.narg(recorded_by), @now)
RETURNING *;

-- name: AddInvoicePaid :one
UPDATE catering_invoices
SET paid_cents = paid_cents + @amount_cents,
    status = CASE WHEN paid_cents + @amount_cents = total_cents THEN 'paid' ELSE status END,
    paid_at = CASE WHEN paid_cents + @amount_cents = total_cents THEN @paid_at::timestamptz ELSE paid_at END
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: VoidCateringInvoice :one
UPDATE catering_invoices SET status = 'void', voided_at = @now::timestamptz
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: ListCateringPayments :many
SELECT * FROM catering_payments WHERE org_id = @org_id AND invoice_id = @invoice_id ORDER BY paid_at, id;

-- name: ListCateringPaymentsOfInvoices :many
SELECT * FROM catering_payments WHERE org_id = @org_id AND invoice_id = ANY (@invoice_ids::uuid[]) ORDER BY paid_at, id;

-- name: GetSharedInvoice :one
SELECT sqlc.embed(i), e.name AS event_name, e.starts_at, c.name AS client_name,
       o.name AS org_name, o.brand_primary, o.brand_accent, st.timezone
FROM catering_invoices i
JOIN catering_events e ON e.org_id = i.org_id AND e.id = i.event_id
JOIN catering_clients c ON c.org_id = e.org_id AND c.id = e.client_id
JOIN sites st ON st.org_id = e.org_id AND st.id = e.site_id
JOIN orgs o ON o.id = i.org_id
WHERE i.org_id = @org_id AND i.id = @id;
