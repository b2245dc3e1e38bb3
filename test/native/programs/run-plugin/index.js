// @ts-check
"use strict";
require("../drift/index.js");
