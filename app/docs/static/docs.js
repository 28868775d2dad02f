/* Starts Swagger UI on /docs. Loaded as a file, never inline, so the page's CSP can say script-src 'self'. */
(function () {
  "use strict";

  function start() {
    var root = document.getElementById("swagger-ui");
    window.ui = window.SwaggerUIBundle({
      url: root.getAttribute("data-spec-url"),
      domNode: root,
      layout: "BaseLayout",             // no top bar: the document is ours, not one typed into a box
      presets: [window.SwaggerUIBundle.presets.apis],
      deepLinking: true,                // #/assessments/createAssessment links straight to an operation
      docExpansion: "list",
      defaultModelsExpandDepth: 0,
      displayOperationId: true,
      displayRequestDuration: true,
      showExtensions: false,
      tryItOutEnabled: false,
      persistAuthorization: false,      // a key pasted into Authorize stays in memory: gone on reload
      queryConfigEnabled: false,        // ?url= cannot point the page at another document
      validatorUrl: null                // no validator badge: it would call validator.swagger.io
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
