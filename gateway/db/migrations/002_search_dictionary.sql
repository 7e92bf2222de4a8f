-- The distinct search terms with how many vehicles carry each: query tokens are expanded to whole
-- terms here (a small table), and the most selective token drives the search.
CREATE TABLE search_dict (
  term text COLLATE "C" PRIMARY KEY,
  n    integer NOT NULL
);
INSERT INTO search_dict (term, n) SELECT term, count(DISTINCT vehicle_id)::int FROM search_terms GROUP BY term;
