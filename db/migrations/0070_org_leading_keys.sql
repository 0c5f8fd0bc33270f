-- +goose Up
-- Sharding by organization needs every tenant row found, and moved, by its org_id: each table
-- with an org_id gets a primary key that starts with it, (org_id, <the old key>). The old key
-- stays unique on its own (ids are looked up, and some foreign keys point, by id alone), so a
-- table that already had a unique (org_id, id) trades it for the new primary key and keeps the
-- same number of indexes; a table that had none gains one. Foreign keys that point at a changed
-- table are dropped and made again as they were; each finds the new key or the kept one.
-- internal/pg/shardable_test.go holds the schema to this (and every foreign key between tenant
-- tables to include org_id), and lists the tables that have no primary key.
-- +goose StatementBegin
DO $$
DECLARE
    t record;
    fk record;
    fks text[];
    pk_cols text;
    dup text;
BEGIN
    FOR t IN
        SELECT c.oid, c.relname, k.conname, k.conkey,
               (SELECT attnum FROM pg_attribute WHERE attrelid = c.oid AND attname = 'org_id') AS org_num
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
        JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'p'
        WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped)
        ORDER BY c.relname
    LOOP
        IF t.conkey[1] = t.org_num THEN
            CONTINUE;
        END IF;
        -- The foreign keys pointing at the table, kept to be made again.
        fks := ARRAY[]::text[];
        FOR fk IN
            SELECT conrelid::regclass AS tbl, conname, pg_get_constraintdef(oid) AS def
            FROM pg_constraint
            WHERE contype = 'f' AND confrelid = t.oid AND conparentid = 0
        LOOP
            fks := fks || format('ALTER TABLE %s ADD CONSTRAINT %I %s', fk.tbl, fk.conname, fk.def);
            EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.tbl, fk.conname);
        END LOOP;
        SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord)
        INTO pk_cols
        FROM unnest(t.conkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE a.attname <> 'org_id';
        -- A unique (org_id, <key>) the new primary key makes redundant.
        SELECT u.conname INTO dup
        FROM pg_constraint u
        WHERE u.conrelid = t.oid AND u.contype = 'u'
          AND u.conkey = ARRAY[t.org_num] || array_remove(t.conkey, t.org_num);
        IF dup IS NOT NULL THEN
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t.relname, dup);
        END IF;
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t.relname, t.conname);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (org_id, %s)', t.relname, t.conname, pk_cols);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I UNIQUE (%s)', t.relname,
                       left(t.relname || '_' || replace(replace(pk_cols, ', ', '_'), '"', '') || '_key', 63), pk_cols);
        FOR i IN 1 .. coalesce(array_length(fks, 1), 0) LOOP
            EXECUTE fks[i];
        END LOOP;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- The keys stay: code from before this migration reads and writes the tables as it did (every
-- old key is still unique on its own, and every foreign key is as it was).
