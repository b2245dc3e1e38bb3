// `run-plugin` requires this folder's package: start the plugin of the package it lives in.
require("../dist/native/plugin/main.js").serve();
