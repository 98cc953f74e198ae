"""Route constants: pages and links refer to these, never to string literals."""

HOME = "/"
LOGIN = "/login"
QUEUE = "/queue"
CONVERSATIONS = "/conversations"
CONVERSATION = "/conversations/[cid]"
NEW_CONVERSATION = "/new"
AUDIT = "/audit"
ANALYTICS = "/analytics"
ADMIN_USERS = "/admin/users"
ADMIN_TEAMS = "/admin/teams"
ADMIN_WORKSPACES = "/admin/workspaces"
TOKENS = "/tokens"
WEBHOOKS = "/webhooks"
RULES = "/rules"  # standing rules (issue 42)
REVIEW_LINK = "/reviews/[rid]"  # webhook and Slack links land here


def conversation(conversation_id) -> str:
    return f"{CONVERSATIONS}/{conversation_id}"
