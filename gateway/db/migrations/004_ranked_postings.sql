-- Ranked search postings. Each row of search_terms now carries the vehicle's place in the result
-- order (make name, model name, newest year, variant name, id) and what filters it (category,
-- published), and its primary key is (term, that order): one index range scan reads a term's
-- vehicles already in result order, filtered as they are read (the vehicle's terms are copied too,
-- so the other query tokens are checked in the posting itself, without a visit to the vehicle), so a
-- search stops after `limit` rows instead of joining and sorting every candidate
-- (docs/performance-gateway.md, section Search).
-- One row per (term, vehicle): the field a term came from was never read.
ALTER TABLE search_terms RENAME TO search_terms_old;
ALTER INDEX search_terms_pkey RENAME TO search_terms_old_pkey;
ALTER INDEX search_terms_vehicle RENAME TO search_terms_old_vehicle;
ALTER TABLE search_terms_old RENAME CONSTRAINT search_terms_vehicle_id_fkey TO search_terms_old_vehicle_id_fkey;

-- neg_year and variant_key ('' for no variant) keep every sort column ascending, so that a row
-- comparison on them is an index bound.
CREATE TABLE search_terms (
  term        text COLLATE "C" NOT NULL,
  vehicle_id  text NOT NULL REFERENCES vehicles(id) ON DELETE CASCADE,
  make_name   text NOT NULL,
  model_name  text NOT NULL,
  neg_year    integer NOT NULL,
  variant_key text NOT NULL,
  category_id text NOT NULL,
  published   boolean NOT NULL,
  terms       text[] NOT NULL
);

INSERT INTO search_terms (term, vehicle_id, make_name, model_name, neg_year, variant_key, category_id, published, terms)
SELECT DISTINCT ON (o.term, o.vehicle_id) o.term, v.id, mk.name, md.name, -v.year, coalesce(v.variant_name, ''), v.category_id, v.published, v.terms
  FROM search_terms_old o
  JOIN vehicles v ON v.id = o.vehicle_id
  JOIN models md ON md.id = v.model_id
  JOIN makes mk ON mk.id = md.make_id;

DROP TABLE search_terms_old;
ALTER TABLE search_terms ADD PRIMARY KEY (term, make_name, model_name, neg_year, variant_key, vehicle_id);
CREATE INDEX search_terms_vehicle ON search_terms (vehicle_id);

-- The copies follow their sources whatever changes them (an import, the admin's publish switch, a
-- renamed make or model). Function bodies stay on one line: migrations are split at line-final ';'.
CREATE FUNCTION search_terms_follow_vehicle() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE search_terms SET published = NEW.published, category_id = NEW.category_id, variant_key = coalesce(NEW.variant_name, ''), terms = NEW.terms WHERE vehicle_id = NEW.id; RETURN NULL; END $$;
CREATE TRIGGER search_terms_follow_vehicle AFTER UPDATE OF published, category_id, variant_name, terms ON vehicles FOR EACH ROW
  WHEN (OLD.published IS DISTINCT FROM NEW.published OR OLD.category_id IS DISTINCT FROM NEW.category_id OR OLD.variant_name IS DISTINCT FROM NEW.variant_name OR OLD.terms IS DISTINCT FROM NEW.terms)
  EXECUTE FUNCTION search_terms_follow_vehicle();

CREATE FUNCTION search_terms_follow_model() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE search_terms st SET model_name = NEW.name FROM vehicles v WHERE v.model_id = NEW.id AND st.vehicle_id = v.id; RETURN NULL; END $$;
CREATE TRIGGER search_terms_follow_model AFTER UPDATE OF name ON models FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION search_terms_follow_model();

CREATE FUNCTION search_terms_follow_make() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE search_terms st SET make_name = NEW.name FROM vehicles v JOIN models md ON md.id = v.model_id WHERE md.make_id = NEW.id AND st.vehicle_id = v.id; RETURN NULL; END $$;
CREATE TRIGGER search_terms_follow_make AFTER UPDATE OF name ON makes FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION search_terms_follow_make();
