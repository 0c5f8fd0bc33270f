-- +goose Up
-- A sensor is at its gateway's site, and its gateway is a sensor gateway: the database holds it,
-- so a gateway with sensors can neither move to another site nor change kind (its sensors,
-- their readings and excursions stay where the readings were taken; the API answers 409
-- gateway_has_sensors), and a sensor registered on a gateway while it moves fails rather than
-- stays behind (the key check waits for the move and finds the old key gone). devices get a key
-- that the reference can name; a sensor names its gateway's kind in a column that can only say
-- sensor_gateway.
ALTER TABLE devices ADD CONSTRAINT devices_site_kind_key UNIQUE (org_id, site_id, id, kind);
ALTER TABLE sensors ADD COLUMN gateway_kind text NOT NULL DEFAULT 'sensor_gateway'
    CONSTRAINT sensors_gateway_kind_check CHECK (gateway_kind = 'sensor_gateway');
ALTER TABLE sensors ADD CONSTRAINT sensors_gateway_site_fkey
    FOREIGN KEY (org_id, site_id, gateway_device_id, gateway_kind) REFERENCES devices (org_id, site_id, id, kind)
    ON DELETE CASCADE NOT VALID;

-- A database from before may hold sensors a gateway left behind when it moved: the key stays
-- NOT VALID there (every write from now on is checked, the rows left behind are not, and their
-- readings are refused: GatewaySensors), and is validated everywhere else.
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM sensors s JOIN devices d ON d.org_id = s.org_id AND d.id = s.gateway_device_id
                   WHERE s.site_id <> d.site_id OR d.kind <> 'sensor_gateway') THEN
        ALTER TABLE sensors VALIDATE CONSTRAINT sensors_gateway_site_fkey;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE sensors DROP CONSTRAINT sensors_gateway_site_fkey;
ALTER TABLE sensors DROP COLUMN gateway_kind;
ALTER TABLE devices DROP CONSTRAINT devices_site_kind_key;
