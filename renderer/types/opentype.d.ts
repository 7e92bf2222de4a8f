// Minimal typings for the parts of opentype.js 2.x the plate renderer uses (the package ships none).
declare module 'opentype.js' {
  export interface PathCommand {
    type: 'M' | 'L' | 'Q' | 'C' | 'Z';
    x?: number;
    y?: number;
    x1?: number;
    y1?: number;
    x2?: number;
    y2?: number;
  }
  export class Path {
    commands: PathCommand[];
    toPathData(decimalPlaces?: number): string;
  }
  export class Glyph {
    advanceWidth?: number;
    getPath(x: number, y: number, fontSize: number): Path;
  }
  export class Font {
    unitsPerEm: number;
    tables: Record<string, unknown>;
    charToGlyph(ch: string): Glyph;
    getPath(text: string, x: number, y: number, fontSize: number, options?: Record<string, unknown>): Path;
    getAdvanceWidth(text: string, fontSize: number, options?: Record<string, unknown>): number;
  }
  export function parse(buffer: ArrayBuffer): Font;
  const opentype: { parse: typeof parse; Font: typeof Font; Path: typeof Path; Glyph: typeof Glyph };
  export default opentype;
}
