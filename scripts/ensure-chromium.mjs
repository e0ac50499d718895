// Makes sure the system Chromium the e2e tests drive is there (CHROMIUM_PATH, default
// /usr/bin/chromium). Root on Debian/Ubuntu: installs Debian's package with apt-get.
// Otherwise: one sentence saying how to install it. Never downloads a browser from elsewhere.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const runnable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

if (runnable(path)) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (isRoot && hasApt && !process.env.CHROMIUM_PATH) {
  console.log("Chromium is missing: installing Debian's chromium package with apt-get…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (runnable(path)) process.exit(0);
}
console.error(
  `The end-to-end tests need Chromium at ${path}: install it with "sudo apt-get install chromium" (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium binary.`,
);
process.exit(1);
