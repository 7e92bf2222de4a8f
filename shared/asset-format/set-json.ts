import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SET_ID_RE, SET_ID_RULE } from './set-id.ts';

/**
 * `set.json` of asset format 2 (docs/asset-format.md): its schema, and reading and writing it. What
 * every writer (baker, photo split, synthetic sets) writes and every reader (renderer, catalog import,
 * recalibration) reads. The layer files are checked by read-set.ts.
 */
export const ASSET_FORMAT = 2 as const;
export const MAX_LAYER_WIDTH = 4096;

export class AssetSetError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'AssetSetError';
  }
}

const point = z.tuple([z.number().finite(), z.number().finite()]);
export const quadSchema = z.tuple([point, point, point, point]);
export const neutralPaintSchema = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'must be #RRGGBB');
export const setIdSchema = z.string().regex(SET_ID_RE, `must be ${SET_ID_RULE}`);
/** A revision as written: a string, or a number that is read as its string. */
export const revisionSchema = z.union([z.string().min(1), z.number()]).transform((r) => String(r));

export const viewSchema = z
  .object({
    width: z.number().int().positive().max(MAX_LAYER_WIDTH),
    height: z.number().int().positive().max(MAX_LAYER_WIDTH),
    plate_quad: z.union([quadSchema, z.null()]),
    shadow: z.boolean(),
    coverage: z.boolean().default(false),
    calibration: z
      .object({
        diffuse_gain: z.number().finite().positive().max(100),
        specular_floor: z.number().finite().min(0).max(1),
      })
      .strict(),
  })
  .strict();
/** A shot's entry in set.json (`views.<id>`), as a writer gives it. */
export type ViewJson = z.output<typeof viewSchema>;

const vec3 = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);
/** A file of the set named by a path relative to the set's folder: no absolute path, no `..`. */
const setRelativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.includes('\\') && p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..'), 'must be a path inside the set (relative, no ..)');
const signedAxis = z.enum(['+X', '-X', '+Y', '-Y', '+Z', '-Z']);
const spinPlateSchema = z.object({ corners: z.tuple([vec3, vec3, vec3, vec3]), normal: vec3 }).strict();

/**
 * `source.spin` (docs/asset-format.md, "The 3D source"): the model kept with a glTF set, how it was put
 * into the studio frame, the turntable rig, the hull outline and the plates, so spin frames can be shot
 * again and their geometry found by projection alone. Metres in the studio frame.
 */
export const spinSourceSchema = z
  .object({
    model: setRelativePath,
    role_map: z.union([setRelativePath, z.null()]),
    normalisation: z
      .object({
        up: signedAxis,
        forward: signedAxis,
        scale: z.number().finite().positive(),
        offset: vec3,
      })
      .strict(),
    rig: z
      .object({
        fov: z.number().finite().gt(0).lt(180),
        elevation_degrees: z.number().finite().gt(-90).lt(90),
        distance: z.number().finite().positive(),
        target: vec3,
        shift_y: z.number().finite(),
      })
      .strict(),
    outline: z.array(vec3).min(4),
    plates: z.object({ front: z.union([spinPlateSchema, z.null()]), rear: z.union([spinPlateSchema, z.null()]) }).strict(),
  })
  .strict();
export type SpinSourceJson = z.output<typeof spinSourceSchema>;

const linearRgb = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1), z.number().min(0).max(1)]);

export const setJsonSchema = z.object({
  id: setIdSchema,
  format: z.literal(ASSET_FORMAT, {
    error: 'must be 2 (format 1 sets have no calibration: re-bake or re-import them, docs/asset-format.md)',
  }),
  revision: revisionSchema,
  /** Free notes for people, and `spin` (the 3D source) when the set keeps one. */
  source: z.object({ spin: spinSourceSchema.optional() }).catchall(z.unknown()).optional(),
  neutral_paint: neutralPaintSchema,
  backdrop: z.object({ top: linearRgb, bottom: linearRgb }).strict().optional(),
  views: z.record(z.string(), viewSchema),
});

/** set.json as read (defaults filled in, revision a string). */
export type SetJson = z.output<typeof setJsonSchema>;
/** set.json as a writer gives it. */
export type SetJsonInput = z.input<typeof setJsonSchema>;

export function setJsonPath(dir: string): string {
  return path.join(dir, 'set.json');
}

function firstIssue(error: z.ZodError): string {
  const first = error.issues[0]!;
  return `${first.path.join('.') || '(root)'}: ${first.message}`;
}

/**
 * Reads a JSON file and checks it against `schema` (set.json, or a photographed shoot's); an error
 * names the file and the first field that is wrong.
 */
export async function readJsonFile<S extends z.ZodType>(file: string, schema: S): Promise<z.output<S>> {
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new AssetSetError(file, `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new AssetSetError(file, `invalid JSON: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new AssetSetError(file, firstIssue(parsed.error));
  return parsed.data;
}

/** Reads and validates `<dir>/set.json` (format 2); the id must be the folder's name. */
export async function readSetJson(dir: string): Promise<SetJson> {
  const file = setJsonPath(dir);
  const s = await readJsonFile(file, setJsonSchema);
  const folder = path.basename(dir);
  if (s.id !== folder) throw new AssetSetError(file, `id "${s.id}" differs from its folder name "${folder}"`);
  return s;
}

/**
 * Reads and validates `<dir>/set.json` like readSetJson, but answers it as written (no defaults
 * filled in, fields in the file's order): for a tool that changes a field and writes it back.
 */
export async function readSetJsonAsWritten(dir: string): Promise<SetJsonInput> {
  await readSetJson(dir);
  return JSON.parse(await fs.readFile(setJsonPath(dir), 'utf8')) as SetJsonInput;
}

/**
 * Writes `<dir>/set.json` after checking it against the schema, in the order the writer gave its
 * fields (two-space JSON and a final newline: a re-bake with the same inputs gives the same bytes).
 */
export async function writeSetJson(dir: string, json: SetJsonInput): Promise<void> {
  const file = setJsonPath(dir);
  const parsed = setJsonSchema.safeParse(json);
  if (!parsed.success) throw new AssetSetError(file, firstIssue(parsed.error));
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, `${JSON.stringify(json, null, 2)}\n`);
  await fs.rename(tmp, file);
}
