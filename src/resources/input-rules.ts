/** What `check` refuses without asking the service; the manifest's load-time check uses them too. */
import { type InputCheck, type InputIssue, inputIssues, type Props } from "./common";
import type { ResourceKind } from "./kinds";
import { RoleInputsSchema } from "./role/model";
import { SecurityGroupInputsSchema } from "./security-group/model";
import { AttachmentInputsSchema } from "./security-group-attachment/model";
import { ServerInputsSchema } from "./server/model";
import { keySourceIssues, SshKeyInputsSchema } from "./ssh-key/model";
import { TagInputsSchema } from "./tag/model";
import { typeIssues, UserInputsSchema } from "./user/model";

/** A rule on two properties, after the schema's; `always` runs it even when the schema refused. */
function withPairRule(
  check: InputCheck,
  rule: (inputs: Props) => InputIssue[],
  always = false,
): InputCheck {
  if (check.issues.length > 0 && !always) return check;
  return { inputs: check.inputs, issues: [...check.issues, ...rule(check.inputs)] };
}

export const INPUT_RULES: Readonly<Record<ResourceKind, (news: Props) => InputCheck>> = {
  Server: (news) => inputIssues(ServerInputsSchema, news),
  SshKey: (news) => withPairRule(inputIssues(SshKeyInputsSchema, news), keySourceIssues, true),
  Tag: (news) => inputIssues(TagInputsSchema, news),
  Role: (news) => inputIssues(RoleInputsSchema, news),
  User: (news) => withPairRule(inputIssues(UserInputsSchema, news), typeIssues),
  SecurityGroup: (news) => inputIssues(SecurityGroupInputsSchema, news),
  SecurityGroupAttachment: (news) => inputIssues(AttachmentInputsSchema, news),
};
