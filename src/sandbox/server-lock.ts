// Servers sharing a data dir. Several servers may serve one folder at once (SQLite keeps their
// writes apart), but a server started with another --seed re-initialises the data: under a
// running one, that server would go on with the old seed's credentials in memory and the new
// seed's playlists on disk. So each server holds a shared SQLite lock on `server.lock` for its
// whole life, and re-initialising needs the exclusive lock: refused while another server runs.
// These are the kernel's record locks, which go with the process however it ends (SIGKILL
// included): nothing stale is ever left to clean up, and two servers started at the same moment
// cannot both win.
import { join } from 'node:path';
import { SandboxFileError, secureDbFiles } from './files';
import { alive, parseRecord, serverRecords } from './records';
import { openConnection, pragma, prepared } from './sqlite';

const LOCK_FILE = 'server.lock';

/** Who serves the data dir, as server.json says, else another server's record (best effort): a running process. */
function holder(dataDir: string): string {
  const named = parseRecord(join(dataDir, 'server.json'));
  for (const r of [...(named ? [named] : []), ...serverRecords(dataDir)]) {
    if (r.pid !== undefined && r.pid !== process.pid && alive(r.pid)) return ` at ${r.baseUrl} (pid ${r.pid})`;
  }
  return '';
}

export interface DataDirShare {
  /** Called before the data is re-initialised for another seed: throws while another server uses the folder. */
  beforeReseed(seed: number): void;
  release(): void;
}

/** Joins the servers of a data dir (waiting out one that is re-initialising it). */
export function shareDataDir(dataDir: string): DataDirShare {
  const file = join(dataDir, LOCK_FILE);
  // a 0600 file of ours, never opened through a symlink planted there
  secureDbFiles(file);
  const db = openConnection(file, { timeout: 10_000 });
  const holdShared = () => prepared(db, 'SELECT count(*) FROM sqlite_master').get();
  try {
    // in exclusive locking mode the lock a read takes is kept until the connection closes
    pragma(db, 'locking_mode = EXCLUSIVE');
    holdShared();
  } catch (e) {
    db.close();
    throw e;
  }
  return {
    beforeReseed(seed) {
      pragma(db, 'busy_timeout = 0');
      try {
        db.exec('BEGIN EXCLUSIVE');
        db.exec('COMMIT');
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_BUSY') {
          throw new SandboxFileError(
            `sandbox data directory ${dataDir} is in use by another sandbox server${holder(dataDir)}: seed ${seed} would re-initialise its data`,
            'stop that server first, or choose another sandbox data directory with --data',
          );
        }
        throw e;
      } finally {
        pragma(db, 'busy_timeout = 10000');
      }
      // back to the shared lock: set NORMAL, touch the file (releasing), then hold it again
      pragma(db, 'locking_mode = NORMAL');
      holdShared();
      pragma(db, 'locking_mode = EXCLUSIVE');
      holdShared();
    },
    release: () => db.close(),
  };
}
