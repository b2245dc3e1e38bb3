/**
 * The plan catalogue (`GET /v1/plans`). Prices are monthly, in euros, as JSON numbers (the spec
 * types `Plan.price` as a number); billing converts them to cents with `priceToCents`.
 *
 * Every plan carries at least `cpu`, `ram_gb`, `disk_gb` and `traffic_tb` in `data`, so the
 * emulator can size a server's metrics from its plan.
 */

import type { PlanType } from "../../api/schemas/catalogue";

export type { PlanType };

/** A plan metadata entry (spec: KeyValue, whose value field is `val` in plans). */
export interface PlanDataEntry {
  /** Entry name, e.g. `ram_gb`. */
  name: string;
  /** Entry value, as text. */
  val: string;
}

/** A plan as the API returns it (spec: Plan). */
export interface PlanRecord {
  /** Unique plan id. */
  id: number;
  /** Plan name. */
  name: string;
  /** Plan description. */
  description: string;
  /** Monthly price in euros. */
  price: number;
  /** `VPS` or `Dedicated Server`. */
  type: PlanType;
  /** Hardware and traffic details. */
  data: PlanDataEntry[];
}

interface PlanSpec {
  cpu: number;
  cpu_type: "shared" | "dedicated";
  cpu_model?: string;
  ram_gb: number;
  disk_gb: number;
  disk_type: string;
  /** Included traffic; dedicated servers are unmetered. */
  traffic_tb: number | "unlimited";
  bandwidth_gbps: number;
  gpu?: string;
}

function planData(spec: PlanSpec): PlanDataEntry[] {
  return Object.entries(spec).map(([name, value]) => ({ name, val: String(value) }));
}

/** The catalogue, cheapest first within each type. */
export const PLANS: readonly PlanRecord[] = [
  {
    id: 1,
    name: "VPS XS",
    description: "1 shared vCPU, 1 GB RAM: small websites, VPN endpoints, test machines.",
    price: 3.49,
    type: "VPS",
    data: planData({
      cpu: 1,
      cpu_type: "shared",
      ram_gb: 1,
      disk_gb: 25,
      disk_type: "NVMe SSD",
      traffic_tb: 1,
      bandwidth_gbps: 1,
    }),
  },
  {
    id: 2,
    name: "VPS S",
    description: "2 shared vCPUs, 4 GB RAM: the all-rounder for web apps and small databases.",
    price: 4.99,
    type: "VPS",
    data: planData({
      cpu: 2,
      cpu_type: "shared",
      ram_gb: 4,
      disk_gb: 80,
      disk_type: "NVMe SSD",
      traffic_tb: 20,
      bandwidth_gbps: 1,
    }),
  },
  {
    id: 3,
    name: "VPS M",
    description: "4 shared vCPUs, 8 GB RAM: busier applications, CI runners, containers.",
    price: 9.49,
    type: "VPS",
    data: planData({
      cpu: 4,
      cpu_type: "shared",
      ram_gb: 8,
      disk_gb: 160,
      disk_type: "NVMe SSD",
      traffic_tb: 20,
      bandwidth_gbps: 1,
    }),
  },
  {
    id: 4,
    name: "VPS L",
    description: "8 shared vCPUs, 16 GB RAM: production services with steady load.",
    price: 18.99,
    type: "VPS",
    data: planData({
      cpu: 8,
      cpu_type: "shared",
      ram_gb: 16,
      disk_gb: 320,
      disk_type: "NVMe SSD",
      traffic_tb: 20,
      bandwidth_gbps: 2,
    }),
  },
  {
    id: 5,
    name: "VPS XL",
    description: "16 shared vCPUs, 32 GB RAM: large applications and in-memory caches.",
    price: 36.99,
    type: "VPS",
    data: planData({
      cpu: 16,
      cpu_type: "shared",
      ram_gb: 32,
      disk_gb: 640,
      disk_type: "NVMe SSD",
      traffic_tb: 20,
      bandwidth_gbps: 2,
    }),
  },
  {
    id: 6,
    name: "VPS CPU-Optimized 8",
    description:
      "8 dedicated vCPUs, 32 GB RAM: compilation, video encoding, latency-sensitive work.",
    price: 59.99,
    type: "VPS",
    data: planData({
      cpu: 8,
      cpu_type: "dedicated",
      ram_gb: 32,
      disk_gb: 240,
      disk_type: "NVMe SSD",
      traffic_tb: 20,
      bandwidth_gbps: 10,
    }),
  },
  {
    id: 7,
    name: "Dedicated Entry",
    description: "6-core AMD Ryzen 5 3600, 64 GB RAM, 2 × 512 GB NVMe in RAID 1.",
    price: 44,
    type: "Dedicated Server",
    data: planData({
      cpu: 6,
      cpu_type: "dedicated",
      cpu_model: "AMD Ryzen 5 3600",
      ram_gb: 64,
      disk_gb: 1024,
      disk_type: "2 × 512 GB NVMe SSD",
      traffic_tb: "unlimited",
      bandwidth_gbps: 1,
    }),
  },
  {
    id: 8,
    name: "Dedicated Pro",
    description: "8-core AMD Ryzen 7 7700, 128 GB DDR5 ECC, 2 × 1 TB NVMe in RAID 1.",
    price: 89,
    type: "Dedicated Server",
    data: planData({
      cpu: 8,
      cpu_type: "dedicated",
      cpu_model: "AMD Ryzen 7 7700",
      ram_gb: 128,
      disk_gb: 2048,
      disk_type: "2 × 1 TB NVMe SSD",
      traffic_tb: "unlimited",
      bandwidth_gbps: 1,
    }),
  },
  {
    id: 9,
    name: "Dedicated Storage",
    description: "8-core Intel Xeon E-2388G, 64 GB ECC, 4 × 16 TB HDD for backups and archives.",
    price: 119,
    type: "Dedicated Server",
    data: planData({
      cpu: 8,
      cpu_type: "dedicated",
      cpu_model: "Intel Xeon E-2388G",
      ram_gb: 64,
      disk_gb: 65536,
      disk_type: "4 × 16 TB SATA HDD",
      traffic_tb: "unlimited",
      bandwidth_gbps: 1,
    }),
  },
  {
    id: 10,
    name: "Dedicated GPU",
    description: "16-core AMD EPYC 9124, 128 GB ECC, NVIDIA L4 24 GB for inference workloads.",
    price: 249.9,
    type: "Dedicated Server",
    data: planData({
      cpu: 16,
      cpu_type: "dedicated",
      cpu_model: "AMD EPYC 9124",
      ram_gb: 128,
      disk_gb: 3840,
      disk_type: "2 × 1.92 TB NVMe SSD",
      traffic_tb: "unlimited",
      bandwidth_gbps: 10,
      gpu: "NVIDIA L4 24 GB",
    }),
  },
];

/** The plan with this id, if the catalogue has one. */
export function findPlan(id: number): PlanRecord | undefined {
  return PLANS.find((plan) => plan.id === id);
}

/** A plan's `data` value by entry name (`ram_gb` → `"4"`). */
export function planValue(plan: PlanRecord, name: string): string | undefined {
  return plan.data.find((entry) => entry.name === name)?.val;
}
