package api

import (
	"maps"
	"regexp"

	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Scope names, short for the table below.
const (
	scAll       = identity.ScopeAll
	scAdmin     = identity.ScopeAdmin
	scBot       = identity.ScopeBot
	scChat      = identity.ScopeChat
	scWorkflow  = identity.ScopeWorkflow
	scPlugin    = identity.ScopePlugin
	scTable     = identity.ScopeTable
	scWorkspace = identity.ScopeWorkspace
	scKnowledge = identity.ScopeKnowledge
	scUsage     = identity.ScopeUsage
)

// anyToken marks the routes every token may call: they only show the
// caller itself, or the workspaces its token reaches, which a token needs
// to find the workspace it was made for.
var anyToken = []string{}

// routeScopes is the one place that says which token scope each
// authenticated route needs, keyed "METHOD /path" as in idl/*.yaml; any
// one of a route's scopes will do (the all scope grants every one).
// middleware.Scopes enforces it; a route missing here answers 500, and
// the route walk (backend/cmd/pergola, TestEveryRouteRefusesForeignTokens)
// fails. Traces need the scope of what they show: chat for a chat's,
// workflow for a workflow run's (the trace service checks which).
var routeScopes = map[string][]string{
	// the caller and its workspaces
	"POST /api/auth/logout":                         anyToken,
	"GET /api/me":                                   anyToken,
	"GET /v1/users/me":                              anyToken,
	"GET /api/workspaces":                           anyToken,
	"GET /v1/workspaces":                            anyToken,
	"GET /api/workspaces/{id}":                      anyToken,
	"GET /api/tokens":                               {scAll},
	"POST /api/tokens":                              {scAll},
	"DELETE /api/tokens/{id}":                       {scAll},
	"POST /api/workspaces":                          {scWorkspace},
	"PATCH /api/workspaces/{id}":                    {scWorkspace},
	"DELETE /api/workspaces/{id}":                   {scWorkspace},
	"GET /api/workspaces/{id}/members":              {scWorkspace},
	"POST /api/workspaces/{id}/members":             {scWorkspace},
	"PATCH /api/workspaces/{id}/members/{user_id}":  {scWorkspace},
	"DELETE /api/workspaces/{id}/members/{user_id}": {scWorkspace},
	"GET /api/models":                               {scBot, scWorkflow, scKnowledge},
	"GET /api/usage":                                {scUsage},

	// the admin API: platform administrators with an unrestricted token
	"GET /api/admin/users":                        {scAdmin},
	"POST /api/admin/users":                       {scAdmin},
	"GET /api/admin/users/{id}":                   {scAdmin},
	"PATCH /api/admin/users/{id}":                 {scAdmin},
	"GET /api/admin/workspaces":                   {scAdmin},
	"GET /api/admin/models":                       {scAdmin},
	"POST /api/admin/models":                      {scAdmin},
	"GET /api/admin/models/{id}":                  {scAdmin},
	"PATCH /api/admin/models/{id}":                {scAdmin},
	"DELETE /api/admin/models/{id}":               {scAdmin},
	"POST /api/admin/models/{id}/test":            {scAdmin},
	"GET /api/admin/channels":                     {scAdmin},
	"PATCH /api/admin/channels/{channel_id}":      {scAdmin},
	"GET /api/admin/plugins":                      {scAdmin},
	"GET /api/admin/plugins/{id}":                 {scAdmin},
	"PATCH /api/admin/plugins/{id}":               {scAdmin},
	"DELETE /api/admin/plugins/{id}":              {scAdmin},
	"PATCH /api/admin/plugins/{id}/tools/{tool}":  {scAdmin},
	"GET /api/admin/tables":                       {scAdmin},
	"GET /api/admin/tables/{id}/rows":             {scAdmin},
	"POST /api/admin/tables/{id}/rows":            {scAdmin},
	"PATCH /api/admin/tables/{id}/rows/{row_id}":  {scAdmin},
	"DELETE /api/admin/tables/{id}/rows/{row_id}": {scAdmin},

	// bots, their variables, feedback and channels
	"POST /v1/bot/create":                                 {scBot},
	"POST /v1/bot/update":                                 {scBot},
	"POST /v1/bot/publish":                                {scBot},
	"GET /v1/bot/get_online_info":                         {scBot},
	"GET /v1/bots/{bot_id}":                               {scBot},
	"GET /v1/bots":                                        {scBot},
	"GET /v1/space/published_bots_list":                   {scBot},
	"GET /v1/variables":                                   {scBot},
	"PUT /v1/variables":                                   {scBot},
	"GET /api/bots":                                       {scBot},
	"POST /api/bots":                                      {scBot},
	"GET /api/bots/{id}":                                  {scBot},
	"PUT /api/bots/{id}":                                  {scBot},
	"DELETE /api/bots/{id}":                               {scBot},
	"POST /api/bots/{id}/publish":                         {scBot},
	"GET /api/bots/{id}/versions":                         {scBot},
	"GET /api/bots/{id}/versions/{version}":               {scBot},
	"GET /api/bots/{id}/variables":                        {scBot},
	"PUT /api/bots/{id}/variables":                        {scBot},
	"DELETE /api/bots/{id}/variables":                     {scBot},
	"GET /api/bots/{id}/feedback":                         {scBot},
	"GET /api/bots/{id}/channels":                         {scBot},
	"POST /api/bots/{id}/channels":                        {scBot},
	"GET /api/bots/{id}/channels/{channel_id}":            {scBot},
	"PATCH /api/bots/{id}/channels/{channel_id}":          {scBot},
	"DELETE /api/bots/{id}/channels/{channel_id}":         {scBot},
	"GET /api/bots/{id}/channels/{channel_id}/deliveries": {scBot},

	// chats, conversations and files
	"POST /v3/chat":                                  {scChat},
	"GET /v3/chat/retrieve":                          {scChat},
	"POST /v3/chat/retrieve":                         {scChat},
	"GET /v3/chat/message/list":                      {scChat},
	"POST /v3/chat/cancel":                           {scChat},
	"POST /v3/chat/submit_tool_outputs":              {scChat},
	"POST /v1/chat/completions":                      {scChat},
	"GET /v1/models":                                 {scChat},
	"GET /v1/models/{model}":                         {scChat},
	"POST /v1/responses":                             {scChat},
	"POST /v1/embeddings":                            {scChat, scKnowledge},
	"GET /v1/responses/{id}":                         {scChat},
	"POST /api/bots/{id}/chat":                       {scChat},
	"POST /v1/conversation/create":                   {scChat},
	"GET /v1/conversation/retrieve":                  {scChat},
	"GET /v1/conversations":                          {scChat},
	"PUT /v1/conversations/{conversation_id}":        {scChat},
	"DELETE /v1/conversations/{conversation_id}":     {scChat},
	"POST /v1/conversations/{conversation_id}/clear": {scChat},
	"POST /v1/conversation/message/create":           {scChat},
	"POST /v1/conversation/message/list":             {scChat},
	"GET /v1/conversation/message/retrieve":          {scChat},
	"POST /v1/conversation/message/modify":           {scChat},
	"POST /v1/conversation/message/delete":           {scChat},
	"POST /v1/conversations/{conversation_id}/messages/{message_id}/feedback":   {scChat},
	"DELETE /v1/conversations/{conversation_id}/messages/{message_id}/feedback": {scChat},
	"POST /v1/files/upload":  {scChat},
	"GET /v1/files/retrieve": {scChat},
	"GET /api/traces/{id}":   {scChat, scWorkflow},

	// workflows and apps
	"POST /v1/workflow/run":                                      {scWorkflow},
	"POST /v1/workflow/stream_run":                               {scWorkflow},
	"POST /v1/workflow/stream_resume":                            {scWorkflow},
	"GET /v1/workflows/{workflow_id}/run_histories/{execute_id}": {scWorkflow},
	"GET /v1/workflows":                                          {scWorkflow},
	"POST /v1/workflows/chat":                                    {scWorkflow},
	"GET /api/workflow-nodes":                                    {scWorkflow},
	"GET /api/workflows":                                         {scWorkflow},
	"POST /api/workflows":                                        {scWorkflow},
	"POST /api/workflows/validate":                               {scWorkflow},
	"POST /api/workflows/import":                                 {scWorkflow},
	"GET /api/workflows/{id}":                                    {scWorkflow},
	"PATCH /api/workflows/{id}":                                  {scWorkflow},
	"DELETE /api/workflows/{id}":                                 {scWorkflow},
	"POST /api/workflows/{id}/test_run":                          {scWorkflow},
	"GET /api/workflows/{id}/runs":                               {scWorkflow},
	"POST /api/workflows/{id}/runs/{execute_id}/cancel":          {scWorkflow},
	"POST /api/workflows/{id}/publish":                           {scWorkflow},
	"GET /api/triggers":                                          {scWorkflow},
	"POST /api/triggers":                                         {scWorkflow},
	"GET /api/triggers/{id}":                                     {scWorkflow},
	"PATCH /api/triggers/{id}":                                   {scWorkflow},
	"DELETE /api/triggers/{id}":                                  {scWorkflow},
	"POST /api/triggers/{id}/pause":                              {scWorkflow},
	"POST /api/triggers/{id}/resume":                             {scWorkflow},
	"GET /api/workflows/{id}/versions":                           {scWorkflow},
	"GET /api/workflows/{id}/versions/{version}":                 {scWorkflow},
	"GET /api/apps":                                              {scWorkflow},
	"POST /api/apps":                                             {scWorkflow},
	"GET /api/apps/{id}":                                         {scWorkflow},
	"PUT /api/apps/{id}":                                         {scWorkflow},
	"DELETE /api/apps/{id}":                                      {scWorkflow},
	"GET /api/apps/{id}/values":                                  {scWorkflow},
	"POST /api/apps/{id}/values/reset":                           {scWorkflow},

	// plugins, tables, knowledge
	"POST /api/plugins":                                        {scPlugin},
	"GET /api/plugins":                                         {scPlugin},
	"GET /api/plugins/{id}":                                    {scPlugin},
	"PATCH /api/plugins/{id}":                                  {scPlugin},
	"DELETE /api/plugins/{id}":                                 {scPlugin},
	"POST /api/plugins/{id}/publish":                           {scPlugin},
	"GET /api/plugins/{id}/versions":                           {scPlugin},
	"GET /api/plugins/{id}/versions/{version}":                 {scPlugin},
	"POST /api/plugins/{id}/refresh":                           {scPlugin},
	"POST /api/plugins/{id}/tools/{tool}/debug":                {scPlugin},
	"GET /api/tables":                                          {scTable},
	"POST /api/tables":                                         {scTable},
	"GET /api/tables/{id}":                                     {scTable},
	"PATCH /api/tables/{id}":                                   {scTable},
	"DELETE /api/tables/{id}":                                  {scTable},
	"GET /api/tables/{id}/rows":                                {scTable},
	"POST /api/tables/{id}/rows":                               {scTable},
	"PATCH /api/tables/{id}/rows/{row_id}":                     {scTable},
	"DELETE /api/tables/{id}/rows/{row_id}":                    {scTable},
	"POST /api/tables/{id}/import":                             {scTable},
	"GET /api/tables/{id}/export":                              {scTable},
	"POST /api/tables/{id}/sql":                                {scTable},
	"GET /api/knowledge":                                       {scKnowledge},
	"POST /api/knowledge":                                      {scKnowledge},
	"GET /api/knowledge/{id}":                                  {scKnowledge},
	"PATCH /api/knowledge/{id}":                                {scKnowledge},
	"DELETE /api/knowledge/{id}":                               {scKnowledge},
	"POST /api/knowledge/{id}/documents":                       {scKnowledge},
	"GET /api/knowledge/{id}/documents":                        {scKnowledge},
	"PATCH /api/knowledge/{id}/documents/{document_id}":        {scKnowledge},
	"DELETE /api/knowledge/{id}/documents/{document_id}":       {scKnowledge},
	"POST /api/knowledge/{id}/documents/{document_id}/refresh": {scKnowledge},
	"GET /api/knowledge/{id}/documents/{document_id}/chunks":   {scKnowledge},
	"POST /api/knowledge/{id}/documents/{document_id}/chunks":  {scKnowledge},
	"PATCH /api/knowledge/{id}/chunks/{chunk_id}":              {scKnowledge},
	"DELETE /api/knowledge/{id}/chunks/{chunk_id}":             {scKnowledge},
	"GET /api/knowledge/{id}/progress":                         {scKnowledge},
	"POST /api/knowledge/{id}/search":                          {scKnowledge},

	// Coze's knowledge (dataset) API
	"GET /v1/datasets":                                   {scKnowledge},
	"POST /v1/datasets":                                  {scKnowledge},
	"PUT /v1/datasets/{dataset_id}":                      {scKnowledge},
	"DELETE /v1/datasets/{dataset_id}":                   {scKnowledge},
	"POST /v1/datasets/{dataset_id}/process":             {scKnowledge},
	"GET /v1/datasets/{dataset_id}/images":               {scKnowledge},
	"PUT /v1/datasets/{dataset_id}/images/{document_id}": {scKnowledge},
	"POST /open_api/knowledge/document/create":           {scKnowledge},
	"POST /open_api/knowledge/document/update":           {scKnowledge},
	"POST /open_api/knowledge/document/delete":           {scKnowledge},
	"GET /open_api/knowledge/document/list":              {scKnowledge},
	"POST /open_api/knowledge/document/list":             {scKnowledge},

	// MCP: published bots and workflows as tools; each call checks the
	// scope of its tool (chat for a bot, workflow for a workflow)
	"GET /mcp":    {scChat, scWorkflow},
	"POST /mcp":   {scChat, scWorkflow},
	"DELETE /mcp": {scChat, scWorkflow},
}

// RouteScopes returns a copy of the route table, keyed "METHOD /path" as
// in idl/*.yaml, for tests and documentation.
func RouteScopes() map[string][]string { return maps.Clone(routeScopes) }

// openAPIParam matches the "{name}" segments of an OpenAPI path.
var openAPIParam = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)

// hertzScopes returns the route table keyed by hertz's patterns.
func hertzScopes() middleware.RouteScopes {
	out := make(middleware.RouteScopes, len(routeScopes))
	for k, v := range routeScopes {
		out[openAPIParam.ReplaceAllString(k, ":$1")] = v
	}
	return out
}
