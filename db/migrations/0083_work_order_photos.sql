-- +goose Up
-- Photos of the problem a work order reports (a cook's "report a problem" from the floor app),
-- bytes included and checked as task photos and board images are.
CREATE TABLE work_order_photos (
    id            uuid        NOT NULL,
    org_id        uuid        NOT NULL,
    work_order_id uuid        NOT NULL,
    content_type  text        NOT NULL,
    size          integer     NOT NULL CHECK (size > 0),
    sha256        bytea       NOT NULL,
    filename      text,
    data          bytea       NOT NULL,
    created_by    uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (org_id, id),
    FOREIGN KEY (org_id, work_order_id) REFERENCES work_orders (org_id, id) ON DELETE CASCADE
);
ALTER TABLE work_order_photos ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX work_order_photos_work_order_idx ON work_order_photos (org_id, work_order_id, created_at, id);

-- +goose Down
DROP TABLE work_order_photos;
