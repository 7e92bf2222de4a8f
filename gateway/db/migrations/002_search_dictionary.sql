-- The distinct search terms with how many vehicles carry each: query tokens are expanded to whole
-- terms here (a small table), and the most selective token drives the search.
CREATE TABLE search_dict (
  term text COLLATE "C" PRIMARY KEY,
  n    integer NOT NULL
);
INSERT INTO search_dict (term, n) SELECT term, count(DISTINCT vehicle_id)::int FROM search_terms GROUP BY term;

-- Each vehicle's own terms, so the tokens other than the driving one are checked inside the row.
ALTER TABLE vehicles ADD COLUMN terms text[] NOT NULL DEFAULT '{}';
UPDATE vehicles v SET terms = ARRAY(SELECT DISTINCT st.term FROM search_terms st WHERE st.vehicle_id = v.id ORDER BY 1);
