// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config("outputs");
const fail = config.getBoolean("fail") === true;
exports.kept = fail ? "from the failed run" : "from the run that worked";
if (fail) pulumi.log.error("this run fails");
else exports.dropped = "only the run that worked exports this";
