// The response schemas whose checkers the build makes (scripts/build.mjs runs precompiledSource()
// and puts its module in place of precompiled.ts), each under the name calls give it (named.ts).
import { precompiledModule } from './in-place';
import * as transforms from './transforms';
import { artistReleasesBody, batchBody, releaseDetailsBody } from './release';
import { releaseTracksBody, trackMetadataBody } from './track';
import { lockerBody } from './locker';

export const PRECOMPILE = {
  'release.batchBody': batchBody,
  'release.artistReleasesBody': artistReleasesBody,
  'release.releaseDetailsBody': releaseDetailsBody,
  'track.releaseTracksBody': releaseTracksBody,
  'track.trackMetadataBody': trackMetadataBody,
  // read by the locker walk's worker threads (src/cli/locker-worker.ts), which load no zod
  'locker.lockerBody': lockerBody,
};

/** The source of the module the build puts in place of precompiled.ts. */
export function precompiledSource(): string {
  return precompiledModule(PRECOMPILE, transforms);
}
