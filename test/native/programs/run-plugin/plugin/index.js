// `run-plugin` requires this folder's package: the plugin of the package under test.
require("../../../../../dist/native/plugin/main.js").serve();
