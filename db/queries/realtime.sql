-- The ledger of device WebSockets across replicas (internal/realtime/ledger.go).

-- name: RenewRealtimeReplica :one
-- created is true when the replica had no row: first use, or its rows were pruned while it was
-- cut off from the database (and its sockets must be entered again).
INSERT INTO realtime_replicas (id, lease_until)
VALUES (@id, now() + make_interval(secs => @lease_seconds::float8))
ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until
RETURNING (xmax = 0)::bool AS created;

-- name: LockRealtimeKey :exec
-- Serializes the admissions that one cap counts, so a cap of N never admits N+1 under a race.
SELECT pg_advisory_xact_lock(hashtextextended('realtime:' || @key::text, 0));

-- name: LiveDeviceSockets :many
-- The device's sockets on replicas whose lease runs, oldest first.
SELECT s.id, s.client_key
FROM realtime_sockets s JOIN realtime_replicas r ON r.id = s.replica_id
WHERE s.org_id = @org_id AND s.device_id = @device_id AND r.lease_until > now()
ORDER BY s.seq;

-- name: CountLiveOrgSockets :one
SELECT count(*)::int
FROM realtime_sockets s JOIN realtime_replicas r ON r.id = s.replica_id
WHERE s.org_id = @org_id AND r.lease_until > now();

-- name: CountLiveClientSockets :one
SELECT count(*)::int
FROM realtime_sockets s JOIN realtime_replicas r ON r.id = s.replica_id
WHERE s.client_key = @client_key AND r.lease_until > now();

-- name: InsertRealtimeSocket :exec
INSERT INTO realtime_sockets (id, replica_id, org_id, device_id, client_key)
VALUES (@id, @replica_id, @org_id, @device_id, @client_key);

-- name: RestoreRealtimeSockets :exec
-- Enters again the sockets a replica still holds after its rows were pruned; those of an
-- organization deleted meanwhile are left out.
INSERT INTO realtime_sockets (id, replica_id, org_id, device_id, client_key)
SELECT t.id, @replica_id, t.org_id, t.device_id, t.client_key
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@org_ids::uuid[]) AS org_id,
             unnest(@device_ids::uuid[]) AS device_id, unnest(@client_keys::text[]) AS client_key) t
JOIN orgs o ON o.id = t.org_id
ON CONFLICT (org_id, id) DO NOTHING;

-- name: DeleteRealtimeSockets :exec
DELETE FROM realtime_sockets WHERE org_id = @org_id AND id = ANY(@ids::uuid[]);

-- name: DeleteRealtimeReplica :exec
DELETE FROM realtime_replicas WHERE id = @id;

-- name: PruneRealtimeReplicas :exec
-- Replicas whose lease ended long ago crashed or were cut off; their sockets go with them.
DELETE FROM realtime_replicas WHERE lease_until < now() - make_interval(secs => @grace_seconds::float8);
