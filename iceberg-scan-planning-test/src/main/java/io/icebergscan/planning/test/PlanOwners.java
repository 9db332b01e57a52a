package io.icebergscan.planning.test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Which principal each plan and each plan-task handle belongs to: the one that submitted the plan. A plan's handles
 * are those in the answers to its submission, to its polls and to the fetches of its handles (Iceberg's chain and a
 * fan-out's tree alike), recorded before the answer is written, so a client never holds a handle of a plan that this
 * has not placed yet. A plan submitted by no principal (while the catalog had none) is placed nowhere, nor are its
 * handles. A plan is forgotten, with its handles, once it is cancelled or a poll answers it failed or cancelled, and
 * all are when the catalog closes; a plan whose handles are all fetched is kept until then.
 */
final class PlanOwners {

  /**
   * Whose a plan-task handle is.
   *
   * @param planId its plan's id, {@code null} for a plan answered without one
   */
  record Owner(String principal, @Nullable String planId) {
  }

  private final Map<String, String> plans = new ConcurrentHashMap<>();
  private final Map<String, Owner> planTasks = new ConcurrentHashMap<>();
  /** Each plan's handles, to forget them with it. */
  private final Map<String, Set<String>> planTasksOfPlan = new ConcurrentHashMap<>();
  private final AtomicInteger crossPrincipalRequests = new AtomicInteger();

  /** A plan submitted by the principal was answered, with these handles: it and they are the principal's. */
  void submitted(String principal, @Nullable String planId, @Nullable List<String> handles) {
    if (planId != null) {
      this.plans.put(planId, principal);
    }
    placed(new Owner(principal, planId), handles);
  }

  /** A poll of the plan was answered with these handles: they are the plan's principal's, if it has one. */
  void polled(String planId, @Nullable List<String> handles) {
    String owner = this.plans.get(planId);
    if (owner != null) {
      placed(new Owner(owner, planId), handles);
    }
  }

  /** The fetch of a handle was answered with these handles: they are the fetched one's owner's, if it has one. */
  void fetched(String handle, @Nullable List<String> handles) {
    Owner owner = this.planTasks.get(handle);
    if (owner != null) {
      placed(owner, handles);
    }
  }

  private void placed(Owner owner, @Nullable List<String> handles) {
    if (handles == null || handles.isEmpty()) {
      return;
    }
    handles.forEach(handle -> this.planTasks.put(handle, owner));
    if (owner.planId() != null) {
      this.planTasksOfPlan.computeIfAbsent(owner.planId(), id -> ConcurrentHashMap.newKeySet()).addAll(handles);
    }
  }

  /** The principal that submitted the plan, {@code null} for a plan this has not placed. */
  @Nullable String ofPlan(String planId) {
    return this.plans.get(planId);
  }

  /** Whose the handle is, {@code null} for one this has not placed. */
  @Nullable Owner ofPlanTask(String handle) {
    return this.planTasks.get(handle);
  }

  /** Forgets an ended plan and its handles. */
  void ended(String planId) {
    this.plans.remove(planId);
    Set<String> handles = this.planTasksOfPlan.remove(planId);
    if (handles != null) {
      handles.forEach(this.planTasks::remove);
    }
  }

  /** A request of one principal for another's plan was refused. */
  void refusedCrossPrincipal() {
    this.crossPrincipalRequests.incrementAndGet();
  }

  int crossPrincipalRequests() {
    return this.crossPrincipalRequests.get();
  }

  void resetCounts() {
    this.crossPrincipalRequests.set(0);
  }

  void clear() {
    this.plans.clear();
    this.planTasks.clear();
    this.planTasksOfPlan.clear();
  }
}
