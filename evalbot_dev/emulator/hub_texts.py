"""Every message the emulator sends back to a client, kept together so they read like the Hub's."""

from __future__ import annotations

INVALID_CREDENTIALS = "Invalid credentials in Authorization header"
AUTH_REQUIRED = "You must be authenticated to access this resource"
REPO_NOT_FOUND = "Repository not found"
GATED_REPO = (
    "Access to {kind} {repo} is restricted. You must have access to it and be authenticated "
    "to access it. Please log in."
)
REVISION_NOT_FOUND = "Invalid rev id: {revision}"
ENTRY_NOT_FOUND = "Entry not found"
FOLDER_NOT_FOUND = "The path {path} does not exist at revision {revision}"
FORBIDDEN_WRITE = "You don't have the rights to write to {repo}"
FORBIDDEN_NAMESPACE = "You don't have the rights to create a repo under the namespace {namespace}"
FORBIDDEN_TOKEN_SCOPE = "This token does not have the '{permission}' permission"  # noqa: S105
FORBIDDEN_DISCUSSION = "You don't have the rights to change discussion #{num} of {repo}"
FORBIDDEN_COMMENT_EDIT = "You can only edit your own comments"
REF_EXISTS = "The {kind} {name} already exists"
REPO_EXISTS = "You already created this {repo_type} repo"
DISCUSSION_NOT_FOUND = "Discussion #{num} not found"
COMMENT_NOT_FOUND = "Comment {comment_id} not found"
NOT_A_PULL_REQUEST = "Discussion #{num} is not a pull request"
PR_NOT_OPEN = "Pull request #{num} is {status}"
MERGE_CONFLICT = "Pull request #{num} has conflicts with {base}: {files}"
INVALID_STATUS = "status must be 'open' or 'closed'"
CREATE_PR_ON_BRANCH_ONLY = "create_pr is only allowed against a branch"
PARENT_COMMIT_MISMATCH = "parentCommit {parent} is not the head of {revision} ({head})"
DELETE_MISSING_FILE = "A file with this name doesn't exist: {path}"
LFS_NOT_SUPPORTED = (
    "LFS uploads are not supported by the local Hub emulator (seed LFS files through its state)"
)
CDN_BAD_SIGNATURE = "Request has expired or its signature does not match"
CDN_NOT_FOUND = "The specified key does not exist."
BAD_REQUEST_BODY = "Invalid request body: {detail}"
WEBHOOK_NOT_FOUND = "Webhook {webhook_id} not found"
ROUTE_NOT_FOUND = "Not Found"
RATE_LIMITED = (
    "You have exceeded our rate limits for the '{bucket}' bucket (emulated). "
    "Retry in {reset} seconds."
)
INTERNAL_ERROR = "Internal Error - the Hub emulator failed; see its log"
INJECTED_SERVER_ERROR = "Internal Error (injected by the Hub emulator)"
INJECTED_TIMEOUT = "Gateway Timeout (injected after the write was applied)"
COMMIT_ON_PR_TITLE = "Upload {n} files"
MERGE_COMMIT_TITLE = "{title} (#{num})"
DEFAULT_COMMENT_HTML = "<p>{escaped}</p>\n"
EXCHANGE_REFUSED = (
    "The token exchange was refused: the ID token does not match a trusted publisher of this "
    "resource"
)
