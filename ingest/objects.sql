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

-- name: forget_unlisted
-- Forgets the objects at $prefix (the object it names, or the keys below $below) that the
-- listing just made (the registered lane_listed: url) no longer holds, so objects_read is
-- what the last listing of each prefix found and had read: the dashboard shows a log whose
-- URL is here as in the bucket.  A forgotten object that comes back is fetched once more
-- and known by its content.
-- params: prefix, below
DELETE FROM objects_read
WHERE (url = $prefix OR starts_with(url, $below))
    AND url NOT IN (SELECT url FROM lane_listed);
