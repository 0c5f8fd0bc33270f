-- +goose Up
-- Every organization-scoped request is authorized by its membership and its organization's plan.
-- Read together they were a join, two relations opened per request, which cost PostgreSQL half
-- as much again as a single primary-key read. orgs.members_version changes with every insert,
-- update or delete of any of the organization's memberships, so the authorizing read is the
-- organization's row alone (GetOrgPlan), and a server keeps each membership in memory at that
-- version: a role changed through any replica or straight in the database applies on every
-- replica's very next request.
ALTER TABLE orgs ADD COLUMN members_version bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION orgs_members_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- An organization's deletion cascades to its memberships and finds no row left to bump.
    IF TG_OP = 'DELETE' THEN
        UPDATE orgs SET members_version = members_version + 1 WHERE id = OLD.org_id;
    ELSIF TG_OP = 'UPDATE' AND OLD.org_id <> NEW.org_id THEN
        UPDATE orgs SET members_version = members_version + 1 WHERE id IN (OLD.org_id, NEW.org_id);
    ELSE
        UPDATE orgs SET members_version = members_version + 1 WHERE id = NEW.org_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER members_version_bump AFTER INSERT OR UPDATE OR DELETE ON memberships
    FOR EACH ROW EXECUTE FUNCTION orgs_members_version_bump();

-- +goose Down
DROP TRIGGER members_version_bump ON memberships;
DROP FUNCTION orgs_members_version_bump();
ALTER TABLE orgs DROP COLUMN members_version;
