-- +goose Up
-- A user's memberships as GET /auth/me shows them (organization, its name, role, sites,
-- credentials) change rarely and are read on every call. memberships_version changes whenever
-- any of it changes, so a server may keep a user's memberships in memory and check, on every
-- request, one primary-key read of the user row whether they are still current: a change made
-- through any replica is seen by every replica on its very next request.
ALTER TABLE users ADD COLUMN memberships_version bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION users_memberships_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'orgs' THEN
        UPDATE users SET memberships_version = memberships_version + 1
        WHERE id IN (SELECT m.user_id FROM memberships m WHERE m.org_id = NEW.id);
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE users SET memberships_version = memberships_version + 1 WHERE id = OLD.user_id;
    ELSIF TG_OP = 'UPDATE' AND OLD.user_id <> NEW.user_id THEN
        UPDATE users SET memberships_version = memberships_version + 1 WHERE id IN (OLD.user_id, NEW.user_id);
    ELSE
        UPDATE users SET memberships_version = memberships_version + 1 WHERE id = NEW.user_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Every change of a membership (an organization's deletion cascades to its memberships), and a
-- renamed organization, which /auth/me shows by name.
CREATE TRIGGER memberships_version_bump AFTER INSERT OR UPDATE OR DELETE ON memberships
    FOR EACH ROW EXECUTE FUNCTION users_memberships_bump();
CREATE TRIGGER orgs_name_memberships_version_bump AFTER UPDATE OF name ON orgs
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION users_memberships_bump();

-- +goose Down
DROP TRIGGER orgs_name_memberships_version_bump ON orgs;
DROP TRIGGER memberships_version_bump ON memberships;
DROP FUNCTION users_memberships_bump();
ALTER TABLE users DROP COLUMN memberships_version;
