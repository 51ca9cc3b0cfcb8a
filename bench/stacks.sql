-- bench/stacks.sql: a round of sqlite work with deep call stacks (inserts,
-- index builds, joins, updates, deletes, LIKE scans) for bench/stacks.
-- Each round builds and drops its own table.
PRAGMA cache_size=-65536;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INT);
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i<400000)
INSERT INTO t SELECT i, hex(randomblob(12)), abs(random()) % 5000 FROM r;
CREATE INDEX tb ON t(b);
CREATE INDEX tc ON t(c, b);
SELECT c, count(*), max(b) FROM t GROUP BY c ORDER BY 2 DESC LIMIT 1;
SELECT count(*) FROM t x JOIN t y ON x.c = y.c WHERE x.a < 3000;
UPDATE t SET b = upper(b) WHERE c % 7 = 0;
DELETE FROM t WHERE c % 11 = 0;
SELECT sum(length(b)) FROM t WHERE b LIKE '%AB%';
DROP TABLE t;
