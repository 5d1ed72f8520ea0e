// Preloaded into every app the launcher starts (`node --import <this> apps/<app>/dist/main.js`):
// when the launcher is gone (killed with SIGKILL, crashed), the app is re-parented and gets the
// SIGTERM it would have been sent, so it drains and exits instead of living on as an orphan.

/** How often the parent is checked, in ms. */
const CHECK_INTERVAL_MS = 1000;

const launcher = process.ppid;
const timer = setInterval(() => {
  if (process.ppid === launcher) return;
  // Once: the apps take a second SIGTERM as "die now".
  clearInterval(timer);
  process.kill(process.pid, 'SIGTERM');
}, CHECK_INTERVAL_MS);
timer.unref();
