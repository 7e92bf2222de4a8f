import type { ComponentChildren } from 'preact';

export interface CountColumn<R> {
  title: string;
  /** Right-aligned figures. */
  numeric?: boolean;
  cell: (row: R) => ComponentChildren;
}

interface Props<R> {
  /** Names the heading (`<id>-title`) and the table's test id. */
  id: string;
  title: string;
  rows: readonly R[];
  /** The first column heads its row (scope=row). */
  columns: readonly CountColumn<R>[];
  rowKey: (row: R) => string;
  /** The row's `data-<name>` attribute (what tests and scripts find a row by). */
  rowData: (row: R) => [name: string, value: string];
  /** The month the counts are for, as the page names it ("November 2026"). */
  monthLabel: string;
}

/** A titled table of counts, one row per item; "No calls in <month>." when there is none. */
export function CountTable<R>({ id, title, rows, columns, rowKey, rowData, monthLabel }: Props<R>) {
  return (
    <div>
      <h3 id={`${id}-title`}>{title}</h3>
      {rows.length === 0 ? (
        <p>No calls in {monthLabel}.</p>
      ) : (
        // focusable, so that a keyboard can scroll a table wider than a phone
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`${title} table`}>
          <table class="table" aria-labelledby={`${id}-title`} data-testid={id}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.title} scope="col" class={c.numeric ? 'num' : undefined}>
                    {c.title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const [name, value] = rowData(r);
                return (
                  <tr key={rowKey(r)} {...{ [`data-${name}`]: value }}>
                    {columns.map((c, i) =>
                      i === 0 ? (
                        <th key={c.title} scope="row">
                          {c.cell(r)}
                        </th>
                      ) : (
                        <td key={c.title} class={c.numeric ? 'num' : undefined}>
                          {c.cell(r)}
                        </td>
                      ),
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
