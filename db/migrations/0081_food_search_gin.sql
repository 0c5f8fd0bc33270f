-- +goose Up
-- Food search, measured on a fresh database (SR28 and 10,000 foods in each of two organizations):
-- * The organization's foods' full-text index led with org_id. Its scan merged the posting list
--   of every food of the organization with the words' ones, and that, not the words, was most of
--   a search's time: 15 ms on a loaded machine for a typo that matches nothing. On the words alone
--   it reads only the matching foods (the organization is checked on each); a search with no
--   match costs a lookup.
-- * The typo path's trigram indexes were GiST: a nearest-first scan (<<->) of USDA's names read
--   hundreds of pages before it knew nothing was near enough (15 ms), and the organization's
--   (org_id, name) GiST returned its candidates by bitmap anyway. GIN trigram indexes find the
--   names with enough trigrams in common at once (2 ms); the few candidates are ranked by word
--   similarity. Nothing else reads these indexes, and what a search answers does not change.
-- All of them take rows straight into the index (fastupdate off, as 0079 says why).
CREATE INDEX usda_foods_name_trgm_gin_idx ON usda_foods USING gin (name gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX org_foods_name_trgm_gin_idx ON org_foods USING gin (name gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX org_foods_words_idx ON org_foods USING gin (search) WITH (fastupdate = off);
DROP INDEX usda_foods_name_trgm_idx;
DROP INDEX org_foods_name_trgm_idx;
DROP INDEX org_foods_search_idx;

-- +goose Down
CREATE INDEX org_foods_search_idx ON org_foods USING gin (org_id, search) WITH (fastupdate = off);
CREATE INDEX org_foods_name_trgm_idx ON org_foods USING gist (org_id, name gist_trgm_ops);
CREATE INDEX usda_foods_name_trgm_idx ON usda_foods USING gist (name gist_trgm_ops);
DROP INDEX org_foods_words_idx;
DROP INDEX org_foods_name_trgm_gin_idx;
DROP INDEX usda_foods_name_trgm_gin_idx;
