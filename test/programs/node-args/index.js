// @ts-check
"use strict";

exports.execArgv = process.execArgv;
