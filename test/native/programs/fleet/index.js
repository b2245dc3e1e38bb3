// @ts-check
// A fleet of every kind that can drift outside Pulumi; names are `<kind>-<n>`, as the test finds
// the objects again through the API.
"use strict";
const cloudinfra = require("pulumi-cloudinfra/native");

/** @param {number} n @param {(i: number) => void} make */
const times = (n, make) => {
  for (let i = 0; i < n; i++) make(i);
};

times(10, (i) => {
  new cloudinfra.Tag(`tag-${i}`, {
    name: `tag-${i}`,
    color: `#0000${String(10 + i).padStart(2, "0")}`,
    data: `team=${i}`,
  });
});
times(8, (i) => {
  new cloudinfra.SecurityGroup(`fw-${i}`, {
    name: `fw-${i}`,
    description: `group ${i}`,
    rules: [
      { action: "ACCEPT", proto: "tcp", dport: String(8000 + i), source: "198.51.100.0/24" },
      { action: "DROP", proto: "udp" },
    ],
  });
});
times(8, (i) => {
  new cloudinfra.Role(`role-${i}`, {
    name: `role-${i}`,
    description: `readers ${i}`,
    permissions: ["tags:read"],
  });
});
times(6, (i) => {
  new cloudinfra.SshKey(`key-${i}`, { name: `key-${i}`, generate: true });
});
times(6, (i) => {
  new cloudinfra.Server(`web-${i}`, {
    name: `web-${i}`,
    planId: 1,
    image: "ubuntu-24.04",
    firewallEnabled: i % 2 === 0,
  });
});
