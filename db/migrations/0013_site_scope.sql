-- +goose Up
-- Site scope for the audit log and for board images: a membership limited to some sites sees
-- only what belongs to those sites.

-- The site a write touched (NULL for organization-wide writes, which only members with every
-- site see). No foreign key: the record outlives what it describes.
ALTER TABLE audit_log ADD COLUMN site_id uuid;

-- Earlier rows: the site of the target where the target is a site-bound resource.
UPDATE audit_log a SET site_id = a.target_id
FROM sites s WHERE s.org_id = a.org_id AND s.id = a.target_id;
UPDATE audit_log a SET site_id = d.site_id
FROM devices d WHERE d.org_id = a.org_id AND d.id = a.target_id;
UPDATE audit_log a SET site_id = t.site_id
FROM tags t WHERE t.org_id = a.org_id AND t.id = a.target_id AND t.site_id IS NOT NULL;
UPDATE audit_log a SET site_id = al.site_id
FROM alerts al WHERE al.org_id = a.org_id AND al.id = a.target_id;
UPDATE audit_log a SET site_id = s.site_id
FROM signoffs s WHERE s.org_id = a.org_id AND s.id = a.target_id;

-- A site-limited member's page of the log reads their sites' rows in order.
CREATE INDEX audit_log_org_site_at_idx ON audit_log (org_id, site_id, at DESC, id DESC) WHERE site_id IS NOT NULL;

-- An image belongs to the site whose boards show it; NULL is an organization-wide image (those
-- uploaded before images had a site, or by a member with every site), which screens of every
-- site may show and only members with every site list or delete.
ALTER TABLE media ADD COLUMN site_id uuid;
ALTER TABLE media ADD FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE;

-- Earlier images cast to the screens of exactly one site belong to that site.
UPDATE media m SET site_id = one.site_id
FROM (SELECT d.org_id, d.cast_content ->> 'mediaKey' AS media_key, min(d.site_id::text)::uuid AS site_id
      FROM devices d WHERE d.cast_content ->> 'mediaKey' IS NOT NULL
      GROUP BY 1, 2 HAVING count(DISTINCT d.site_id) = 1) one
WHERE m.org_id = one.org_id AND m.id::text = one.media_key;
UPDATE audit_log a SET site_id = m.site_id
FROM media m WHERE m.org_id = a.org_id AND m.id = a.target_id AND m.site_id IS NOT NULL;

CREATE INDEX media_org_site_created_idx ON media (org_id, site_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX media_org_site_created_idx;
ALTER TABLE media DROP COLUMN site_id;
DROP INDEX audit_log_org_site_at_idx;
ALTER TABLE audit_log DROP COLUMN site_id;
