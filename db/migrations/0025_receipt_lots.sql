-- +goose Up
-- Every receipt goes into a lot now. Stock received earlier without one, and still on hand where
-- it was received, moves into a lot of its receipt's own, as a receipt makes today: code
-- R<local date of the receipt>-<n>, expiry the received date + the item's shelf life (none
-- without one), received_at the receipt's time.
--
-- What is still on hand of a location's stock outside any lot is taken to be its newest arrivals
-- (issues took the older stock): the positive unlotted rows are walked newest first until they
-- account for the on-hand, and the receipts' parts of that are moved; what came from opening
-- balances, corrections, counts or transfers stays outside any lot. The ledger is append-only,
-- so each move is a pair of correction rows at the average cost in force (out of the unlotted
-- stock, into the lot; source lot_assignment, id the receipt's), and the balances change by
-- the same amounts: each bucket's balance stays the sum of its ledger rows, and the site's
-- on-hand and average do not change.
--
-- Run again (after a Down), it moves nothing twice: a receipt that already has lot_assignment
-- rows is left alone, and the walk counts what was already moved as still there.

CREATE TEMP TABLE lot_moves ON COMMIT DROP AS
WITH unlotted AS (
    SELECT b.org_id, b.site_id, b.item_id, b.location_id, b.quantity AS held,
           b.quantity + coalesce((SELECT sum(t.quantity) FROM stock_txns t
                                  WHERE t.org_id = b.org_id AND t.item_id = b.item_id AND t.location_id = b.location_id
                                    AND t.lot_id IS NOT NULL AND t.source_type = 'lot_assignment'), 0) AS on_hand
    FROM stock_balances b
    WHERE b.lot_id IS NULL AND b.quantity > 0
), arrivals AS (
    SELECT t.id, t.org_id, t.site_id, t.item_id, t.location_id, t.kind, t.source_type, t.source_id, t.at, t.quantity, u.held,
           u.on_hand - coalesce(sum(t.quantity) OVER (PARTITION BY t.org_id, t.item_id, t.location_id
                                                      ORDER BY t.at DESC, t.id DESC
                                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS room
    FROM unlotted u
    JOIN stock_txns t ON t.org_id = u.org_id AND t.item_id = u.item_id AND t.location_id = u.location_id
    WHERE t.lot_id IS NULL AND t.quantity > 0
), parts AS (
    -- The receipts not yet moved, with their part of the on-hand; never more, together, than
    -- the unlotted stock holds now.
    SELECT a.*, least(a.quantity, a.room) AS part,
           coalesce(sum(least(a.quantity, a.room)) OVER (PARTITION BY a.org_id, a.item_id, a.location_id
                                                        ORDER BY a.at DESC, a.id DESC
                                                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS parts_before
    FROM arrivals a
    WHERE a.kind = 'receipt' AND a.room > 0
      AND NOT EXISTS (SELECT 1 FROM stock_txns x
                      WHERE x.org_id = a.org_id AND x.item_id = a.item_id AND x.source_type = 'lot_assignment'
                        AND x.source_id = a.source_id)
), shares AS (
    SELECT p.org_id, p.site_id, p.item_id, p.location_id, p.source_type, p.source_id, min(p.at) AS at,
           sum(least(p.part, p.held - p.parts_before)) AS quantity
    FROM parts p
    WHERE p.held > p.parts_before
    GROUP BY p.org_id, p.site_id, p.item_id, p.location_id, p.source_type, p.source_id
)
SELECT s.*, (min(s.at) OVER r AT TIME ZONE st.timezone)::date AS received_on, i.shelf_life_days,
       c.avg_cost, (SELECT sum(b.quantity) FROM stock_balances b
                    WHERE b.org_id = s.org_id AND b.item_id = s.item_id AND b.location_id = s.location_id) AS location_on_hand,
       NULL::uuid AS lot_id, NULL::text AS code
FROM shares s
JOIN sites st ON st.org_id = s.org_id AND st.id = s.site_id
JOIN inventory_items i ON i.org_id = s.org_id AND i.id = s.item_id
JOIN stock_costs c ON c.org_id = s.org_id AND c.item_id = s.item_id AND c.site_id = s.site_id
WINDOW r AS (PARTITION BY s.org_id, s.item_id, s.source_id);

-- One lot per receipt and item: its id, and its code numbered per item, site and local date
-- after any code of that shape already taken.
WITH receipts AS (
    SELECT DISTINCT ON (org_id, item_id, source_id) org_id, site_id, item_id, source_id, at, received_on
    FROM lot_moves ORDER BY org_id, item_id, source_id, at
), numbered AS (
    SELECT r.*,
           encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                                          PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                                          FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid AS lot_id,
           'R' || to_char(r.received_on, 'YYYYMMDD') || '-' AS prefix,
           row_number() OVER (PARTITION BY r.org_id, r.site_id, r.item_id, r.received_on ORDER BY r.at, r.source_id) AS n
    FROM receipts r
)
UPDATE lot_moves m
SET lot_id = n.lot_id,
    code = n.prefix || (n.n + coalesce((SELECT max(substring(l.code FROM length(n.prefix) + 1)::int)
                                         FROM lots l
                                         WHERE l.org_id = n.org_id AND l.site_id = n.site_id AND l.item_id = n.item_id
                                           AND starts_with(l.code, n.prefix)
                                           AND substring(l.code FROM length(n.prefix) + 1) ~ '^[1-9][0-9]{0,8}$'), 0))
FROM numbered n
WHERE m.org_id = n.org_id AND m.item_id = n.item_id AND m.source_id = n.source_id;

INSERT INTO lots (id, org_id, site_id, item_id, code, expires_on, received_at)
SELECT DISTINCT ON (lot_id) lot_id, org_id, site_id, item_id, code, received_on + shelf_life_days, at
FROM lot_moves ORDER BY lot_id, at;

-- The pair of ledger rows of each move: out of the unlotted stock, into the lot. The value is
-- rounded half-even to the cent, as the application rounds.
INSERT INTO stock_txns (id, org_id, site_id, at, kind, item_id, location_id, lot_id, quantity, unit_cost, value_cents,
                        avg_cost_after, on_hand_after, reason, source_type, source_id, actor_id)
SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                                      PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                                      FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid,
       m.org_id, m.site_id, now(), 'correction', m.item_id, m.location_id, d.lot_id, d.quantity, m.avg_cost,
       CASE WHEN abs(d.value - trunc(d.value)) = 0.5 THEN 2 * round(d.value / 2) ELSE round(d.value) END::bigint,
       m.avg_cost, m.location_on_hand, 'lot_assignment', 'lot_assignment', m.source_id, NULL
FROM lot_moves m
CROSS JOIN LATERAL (VALUES (1, NULL::uuid, -m.quantity, -m.quantity * m.avg_cost),
                           (2, m.lot_id, m.quantity, m.quantity * m.avg_cost)) AS d(step, lot_id, quantity, value)
ORDER BY m.org_id, m.item_id, m.location_id, m.source_id, d.step;

UPDATE stock_balances b
SET quantity = b.quantity - m.quantity, updated_at = now()
FROM (SELECT org_id, item_id, location_id, sum(quantity) AS quantity FROM lot_moves GROUP BY org_id, item_id, location_id) m
WHERE b.org_id = m.org_id AND b.item_id = m.item_id AND b.location_id = m.location_id AND b.lot_id IS NULL;

INSERT INTO stock_balances (org_id, site_id, item_id, location_id, lot_id, quantity, updated_at)
SELECT org_id, site_id, item_id, location_id, lot_id, quantity, now() FROM lot_moves;

DROP TABLE lot_moves;

-- +goose Down
-- The lots made stay, with the stock moved into them: the code before this migration reads,
-- issues and counts lots as any other. Up, run again, moves nothing twice.
