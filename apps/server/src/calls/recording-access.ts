/**
 * Who may play a call's recording, and which files may be sent as one (issue 36 item 6).
 *
 * - An agent plays the recordings of the calls they took part in: the call's own agent, or a user
 *   who joined it (answered: a transfer, a conference, a supervisor's listen). A user rung who did
 *   not answer heard nothing of it.
 * - A supervisor (the listen, whisper or barge permission) plays every recording of the account,
 *   as they may join any live call of it. The product has no administrator role yet; when it has,
 *   it belongs beside the supervisors here.
 * - A recording the embedded engine wrote is a file; only a file under the recordings folder
 *   (`DATA_DIR/recordings`, where the engine writes them, resolved with its links) is ever sent.
 *   The rest of the data folder holds the secrets (`token-secret`, `pusher-secret`), the TLS key
 *   and the PGlite files: none of them is ever a recording, whatever `calls.recording_path` says.
 *   With Twilio no local file is sent at all (the route serves Twilio's recordings only).
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { DbOrTx } from '../db/database';
import { callsTakenPartIn } from './call-users-repo';
import { PERMISSION } from '../auth/permissions';

/** The refusal of a recording of a call the user did not take part in. */
export const RECORDING_NOT_YOURS = 'You can play only the recordings of calls you took part in.';

/** The permissions that let a user play every recording of the account. */
const SUPERVISE = [PERMISSION.listen, PERMISSION.whisper, PERMISSION.barge];

/** Whether the user plays every recording of the account (a supervisor). */
export const hearsAccountRecordings = (user: { permissions: string[] }): boolean =>
  SUPERVISE.some((permission) => user.permissions.includes(permission));

/** Whether the user may play the recording of `call` (a call of their account). */
export async function mayHearRecording(
  db: DbOrTx,
  user: { id: number; permissions: string[] },
  call: { id: number; userId: number | null },
): Promise<boolean> {
  if (hearsAccountRecordings(user)) return true;
  return (await callsTakenPartIn(db, user.id, [call])).has(call.id);
}

/**
 * The folder the embedded engine writes the calls' recordings to, and the only one they are
 * served from: `recordings` in the data folder, apart from its secrets and database files.
 */
export const recordingsFolderOf = (dataDir: string): string => join(dataDir, 'recordings');

/**
 * The real path of the recording file `path` when it is a file under `root` (both resolved with
 * their links, so neither `..` nor a link leads out; a relative `path` is taken from `root`);
 * null otherwise, or without a root.
 */
export async function recordingFileUnder(
  root: string | undefined,
  path: string,
): Promise<string | null> {
  if (root === undefined) return null;
  const [realRoot, realFile] = await Promise.all([
    realpath(root).catch(() => null),
    realpath(resolve(root, path)).catch(() => null),
  ]);
  if (realRoot === null || realFile === null) return null;
  const inside = relative(realRoot, realFile);
  if (inside === '' || inside.split(sep)[0] === '..' || isAbsolute(inside)) return null;
  const info = await stat(realFile).catch(() => null);
  return info?.isFile() ? realFile : null;
}

/** Recordings kept by the telephony provider (Twilio's), fetched when a user plays one. */
export interface RemoteRecordings {
  /** Whether the stored recording `url` is one this fetcher serves. */
  owns(url: string): boolean;
  /** The recording; `range` is the player's `Range` header. */
  fetch(url: string, range?: string): Promise<Response>;
}
