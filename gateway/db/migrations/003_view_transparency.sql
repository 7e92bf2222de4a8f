-- Copied from the asset set like shadow and plate_quad: whether the view has a coverage layer and so
-- can be rendered on a transparent background (background=transparent), checked at the image JSON call.
ALTER TABLE vehicle_views ADD COLUMN transparent boolean NOT NULL DEFAULT false;
