package io.icebergscan.planning;

import java.util.List;

/** {@link ScriptedCatalog} for tests in other packages (health, metrics, auto-configuration). */
public final class TestCatalogs {

  /** A config answer that advertises every planning endpoint. */
  public static final String ALL_ENDPOINTS = ScriptedCatalog.ALL_ENDPOINTS;

  private TestCatalogs() {
  }

  /** Starts a scripted catalog on a loopback port. */
  public static Catalog start() {
    return new Catalog(new ScriptedCatalog());
  }

  /** A catalog on a real socket whose answers the test scripts; see {@link ScriptedCatalog}. */
  public static final class Catalog implements AutoCloseable {

    private final ScriptedCatalog catalog;

    private Catalog(ScriptedCatalog catalog) {
      this.catalog = catalog;
    }

    public String uri() {
      return this.catalog.uri();
    }

    /** The body of {@code GET /v1/config} answers. */
    public Catalog config(String json) {
      this.catalog.config = json;
      return this;
    }

    /** The next plan submission completes at once with these file scan tasks and plan-task handles. */
    public Catalog completedPlan(String planId, List<String> tasks, List<String> planTasks) {
      this.catalog.plan(ScriptedCatalog.json(200, ScriptedCatalog.completed(planId, tasks, planTasks)));
      return this;
    }

    /** The next plan submission answers "submitted"; polls answer "completed" with these tasks and handles. */
    public Catalog submittedPlan(String planId, List<String> tasks, List<String> planTasks) {
      this.catalog.plan(ScriptedCatalog.json(200, "{\"status\":\"submitted\",\"plan-id\":\"" + planId + "\"}"));
      this.catalog.polls(ScriptedCatalog.json(200, ScriptedCatalog.completed(planId, tasks, planTasks)));
      return this;
    }

    /** Fetching {@code handle} answers these file scan tasks and child handles. */
    public Catalog task(String handle, List<String> tasks, List<String> planTasks) {
      this.catalog.task(handle, ScriptedCatalog.tasks(tasks, planTasks));
      return this;
    }

    /** Fetching {@code handle} answers an Iceberg error. */
    public Catalog failingTask(String handle, int status, String errorType) {
      this.catalog.task(handle, ScriptedCatalog.error(status, errorType));
      return this;
    }

    /**
     * Fetching {@code handle} answers these file scan tasks only once the returned action runs; the
     * answer holds no thread meanwhile.
     */
    public Runnable heldTask(String handle, List<String> tasks) {
      ScriptedCatalog.Gate gate = new ScriptedCatalog.Gate();
      this.catalog.task(handle, ScriptedCatalog.tasks(tasks, List.of()).gated(gate));
      return gate::open;
    }

    /** Waits (bounded) until the catalog has received the fetch of {@code handle}. */
    public void awaitFetchStarted(String handle) {
      this.catalog.awaitStarted(handle);
    }

    /** Every request received, as {@code "<METHOD> <path and query>"}, in order. */
    public List<String> requests() {
      return List.copyOf(this.catalog.requests);
    }

    /** Plan-task fetches received. */
    public int fetches() {
      return this.catalog.fetchOrder.size();
    }

    @Override
    public void close() {
      this.catalog.close();
    }
  }
}
