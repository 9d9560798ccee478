/**
 * Master data in the ledger: each version of a configured lookup table (the ERP's customers, suppliers,
 * employees), with the file, content hash and export time it came from, and its rows by id. It lives in
 * the ledger so that every node of a cluster reads the same version from the shared PostgreSQL ledger.
 * A new version is stored only when its content differs from the newest one; two nodes storing the
 * same file at once keep one version (the second finds the first's hash, or loses the key race and
 * finds the other's version and looks again). Versions beyond the newest KEEP_VERSIONS are deleted with their rows.
 */
import type { SqlExecutor } from './sql/executor.js';

/** Versions kept per table: the newest and the one before it (what a file read while the new one landed may hold). */
export const KEEP_VERSIONS = 2;

/** Rows inserted per statement. */
const ROWS_PER_STATEMENT = 200;

export interface MasterVersion {
  table: string;
  version: number;
  /** The file's name (not its folder) and the SHA-256 (hex) of its bytes. */
  file: string;
  sha256: string;
  /** The file's modification time (ms): when the ERP exported it. */
  fileMtime: number;
  loadedAt: number;
  columns: string[];
  rowCount: number;
}

export interface NewMasterVersion {
  table: string;
  file: string;
  sha256: string;
  fileMtime: number;
  columns: string[];
  /** id -> the cells in `columns` order. */
  rows: ReadonlyMap<string, readonly string[]>;
}

/** A version with its rows, as a mapping reads it (plain data: it crosses to the intake worker). */
export interface MasterTableData extends MasterVersion {
  rows: Record<string, string[]>;
}

interface VersionRow {
  table_name: string;
  version: number | string;
  file: string;
  sha256: string;
  file_mtime: number | string;
  loaded_at: number | string;
  columns: string;
  row_count: number | string;
}

function versionOf(r: VersionRow): MasterVersion {
  return {
    table: r.table_name,
    version: Number(r.version),
    file: r.file,
    sha256: r.sha256,
    fileMtime: Number(r.file_mtime),
    loadedAt: Number(r.loaded_at),
    columns: JSON.parse(r.columns) as string[],
    rowCount: Number(r.row_count),
  };
}

/** The newest version of a table, or undefined when no file was loaded yet. */
export async function latestMasterVersion(
  q: SqlExecutor,
  table: string,
): Promise<MasterVersion | undefined> {
  const r = await q.get<VersionRow>(
    'SELECT * FROM master_versions WHERE table_name = ? ORDER BY version DESC LIMIT 1',
    [table],
  );
  return r === undefined ? undefined : versionOf(r);
}

/**
 * Stores a new version unless the newest one has the same content; one transaction. Returns the version
 * stored, or `undefined` with the newest version when the content is the same.
 */
export async function storeMasterVersion(
  q: SqlExecutor,
  input: NewMasterVersion,
  now: number,
): Promise<{ stored: MasterVersion | undefined; latest: MasterVersion | undefined }> {
  return q.transaction(async (tx) => {
    const latest = await latestMasterVersion(tx, input.table);
    if (latest !== undefined && latest.sha256 === input.sha256)
      return { stored: undefined, latest };
    const version = (latest?.version ?? 0) + 1;
    // another node storing the same version number at once: its insert wins, this one stores nothing
    const taken = await tx.run(
      `INSERT INTO master_versions(table_name, version, file, sha256, file_mtime, loaded_at, columns, row_count)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_name, version) DO NOTHING`,
      [
        input.table,
        version,
        input.file,
        input.sha256,
        input.fileMtime,
        now,
        JSON.stringify(input.columns),
        input.rows.size,
      ],
    );
    if (taken.changes === 0)
      return { stored: undefined, latest: await latestMasterVersion(tx, input.table) };
    let batch: unknown[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const values = Array.from({ length: batch.length / 4 }, () => '(?, ?, ?, ?)').join(', ');
      await tx.run(
        `INSERT INTO master_rows(table_name, version, id, cells) VALUES ${values}`,
        batch,
      );
      batch = [];
    };
    for (const [id, cells] of input.rows) {
      batch.push(input.table, version, id, JSON.stringify(cells));
      if (batch.length >= ROWS_PER_STATEMENT * 4) await flush();
    }
    await flush();
    const oldest = version - KEEP_VERSIONS;
    if (oldest >= 1) {
      await tx.run('DELETE FROM master_rows WHERE table_name = ? AND version <= ?', [
        input.table,
        oldest,
      ]);
      await tx.run('DELETE FROM master_versions WHERE table_name = ? AND version <= ?', [
        input.table,
        oldest,
      ]);
    }
    const stored: MasterVersion = {
      table: input.table,
      version,
      file: input.file,
      sha256: input.sha256,
      fileMtime: input.fileMtime,
      loadedAt: now,
      columns: [...input.columns],
      rowCount: input.rows.size,
    };
    return { stored, latest: stored };
  });
}

/** One version of a table with all its rows (one read transaction), or undefined when it is gone. */
export async function readMasterTable(
  q: SqlExecutor,
  table: string,
  version: number,
): Promise<MasterTableData | undefined> {
  return q.read(async (tx) => {
    const r = await tx.get<VersionRow>(
      'SELECT * FROM master_versions WHERE table_name = ? AND version = ?',
      [table, version],
    );
    if (r === undefined) return undefined;
    const rows: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    for (const row of await tx.all<{ id: string; cells: string }>(
      'SELECT id, cells FROM master_rows WHERE table_name = ? AND version = ?',
      [table, version],
    )) {
      rows[row.id] = JSON.parse(row.cells) as string[];
    }
    return { ...versionOf(r), rows };
  });
}
