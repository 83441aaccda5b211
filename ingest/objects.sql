-- Objects read from an object store (ingest/objects.py): the listing's shortcut past objects read before.

-- name: objects_below
-- The objects read to their end whose URL starts with $prefix: the ETag and size they were listed with.
-- params: prefix
SELECT url, etag, size FROM objects_read WHERE starts_with(url, $prefix);

-- name: record_objects
-- Objects read to their end (the registered lane_objects: url, etag, size, now), replacing what
-- was recorded for the same URL.
-- params:
INSERT OR REPLACE INTO objects_read (url, etag, size, last_read)
SELECT url, etag, size, now FROM lane_objects;
