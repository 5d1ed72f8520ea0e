#!/usr/bin/env node
import { runCli } from './program.js';

// Leaves through exitCode, not process.exit(), so stdout is flushed when piped.
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
