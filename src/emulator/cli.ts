#!/usr/bin/env node
/**
 * The `cloudinfra-emulator` bin (package.json `bin`, `npm run emulator`): the command line itself
 * lives in cli/, with the rest of what runs the emulator as a process.
 */
import "./cli/main";
