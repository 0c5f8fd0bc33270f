-- +goose Up
-- An organization's sites as GET /orgs/{orgId}/sites lists them change rarely and are read on
-- every call. orgs.sites_version changes with every change of any of them, and it is read on
-- every organization-scoped request anyway, with the membership, in the primary-key lookup that
-- authorizes it (GetMembershipWithOrg, GetOrgPlan). So a server may keep an organization's sites
-- in memory and know from that one read whether they are still current: a site created or
-- renamed through any replica is listed by every replica on its very next request.
ALTER TABLE orgs ADD COLUMN sites_version bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION orgs_sites_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A site never moves between organizations (its key leads with org_id); an organization's
    -- deletion cascades to its sites and finds no row left to bump.
    IF TG_OP = 'DELETE' THEN
        UPDATE orgs SET sites_version = sites_version + 1 WHERE id = OLD.org_id;
    ELSE
        UPDATE orgs SET sites_version = sites_version + 1 WHERE id = NEW.org_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER sites_version_bump AFTER INSERT OR UPDATE OR DELETE ON sites
    FOR EACH ROW EXECUTE FUNCTION orgs_sites_version_bump();

-- +goose Down
DROP TRIGGER sites_version_bump ON sites;
DROP FUNCTION orgs_sites_version_bump();
ALTER TABLE orgs DROP COLUMN sites_version;
